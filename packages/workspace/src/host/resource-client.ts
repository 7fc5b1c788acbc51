import { PROTOCOL_PATHS, type ResourceRequest } from '@weft/core/protocol';
import type { AppClient } from '@weft/sync-engine';

// `POST /api/v1/synchronizer/resource`: the app serves a file referenced as `app://resource?...`.
// The answer is the file itself (not JSON), so it is read as a stream rather than through the
// protocol client's JSON calls. The body carries the account: it never goes into an error.

export interface AppResourceContext {
  client: AppClient;
  account: Record<string, unknown>;
  filter?: Record<string, unknown>;
  types?: string[];
}

export class ResourceError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The app's answer for a resource; the caller reads (or cancels) its body. */
export async function fetchResource(
  app: AppResourceContext,
  params: Record<string, string>,
  signal?: AbortSignal,
): Promise<Response> {
  const body: ResourceRequest = {
    types: app.types ?? [],
    account: app.account,
    filter: app.filter ?? {},
    params,
  };
  let response: Response;
  try {
    response = await fetch(app.client.baseUrl + PROTOCOL_PATHS.resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    const e = error as { name?: string; cause?: { code?: string } };
    throw new ResourceError(`the app could not be reached (${e.cause?.code ?? e.name ?? 'error'})`, 0);
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    let message = `HTTP ${response.status}`;
    try {
      const m = (JSON.parse(text) as { message?: unknown }).message;
      if (typeof m === 'string') message = m.slice(0, 300);
    } catch {
      // not JSON: the status says enough
    }
    throw new ResourceError(`the app's resource endpoint answered ${message}`, response.status);
  }
  return response;
}
