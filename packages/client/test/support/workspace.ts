// Starts a real local workspace (HTTP on 127.0.0.1, PGlite in memory unless told otherwise) for
// the enclosing describe, and gives each test its address and admin token.
import { randomBytes } from 'node:crypto';
import { type RunningWorkspace, type StartWorkspaceOptions, startWorkspace } from '@weft/workspace';
import { afterAll, beforeAll } from 'vitest';

export interface LocalWorkspace {
  ws: RunningWorkspace;
  url: string;
  token: string;
}

export function useLocalWorkspace(options: StartWorkspaceOptions = {}): LocalWorkspace {
  const h = {} as LocalWorkspace;
  beforeAll(async () => {
    const token = `admin-${randomBytes(12).toString('hex')}`;
    h.ws = await startWorkspace({
      rateLimit: 0,
      adminToken: token,
      webhooks: { pollMs: 50, backoffMs: () => 100, timeoutMs: 2000 },
      log: () => {},
      ...options,
    });
    h.url = h.ws.url;
    h.token = token;
  });
  afterAll(async () => {
    await h.ws?.close();
  });
  return h;
}

/** Counts the requests a workspace receives, through the client's own event hook. */
export function requestCounter() {
  const seen = { requests: 0, rateLimited: 0 };
  return {
    seen,
    onEvent: (e: { type: string; status?: number }) => {
      if (e.type === 'request') seen.requests++;
      if (e.type === 'request' && e.status === 429) seen.rateLimited++;
    },
  };
}
