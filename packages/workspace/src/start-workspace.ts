import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hardenServer, type ServerLimits } from '@weft/core/hardening';
import type { Namespace } from '@weft/namespace';
import type { Router } from 'express';
import type { RequestBudgets } from './commands/budgets.js';
import type { DatabaseOption } from './db/open-driver.js';
import type { SecretBox } from './host/secret-box.js';
import { createApp } from './http/create-app.js';
import { SERVER_LIMITS } from './http/server-options.js';
import { createWorkspaceServer, type TlsOptions } from './http/tls.js';
import type { JobQueueOptions } from './jobs/job-queue.js';
import { isLoopbackHost, type OutboundOptions } from './outbound/index.js';
import { type AddressLimits, DEFAULT_ADDRESS_LIMITS } from './rate-limit/address-limits.js';
import { openWorkspace, type Workspace } from './workspace.js';
import type { WebhookWorkerOptions } from './webhooks/webhook-worker.js';

export const DEFAULT_RATE_LIMIT = 3;

export interface StartWorkspaceOptions {
  /** default: PGlite in memory */
  database?: DatabaseOption;
  /** default 0: any free port */
  port?: number;
  /** default 127.0.0.1 */
  host?: string;
  /** serve HTTPS with this certificate and key (PEM); default: plain HTTP (see http/tls.ts) */
  tls?: TlsOptions;
  adminToken?: string;
  /** requests per second per token (default 3); 0 turns the limit off */
  rateLimit?: number;
  /** the largest file an upload may hold, in bytes (default 100 MiB) */
  maxFileBytes?: number;
  /** the HTTP server's connection cap and timeouts (default: http/server-options.ts) */
  server?: ServerLimits;
  /** what one data API request may ask (see docs/security.md, Request budgets); unset: defaults */
  budgets?: Partial<RequestBudgets>;
  /** limits by client address for /ui pages and unknown tokens; unset: defaults */
  addressLimits?: Partial<AddressLimits>;
  webhooks?: WebhookWorkerOptions | false;
  /**
   * What the workspace may fetch on a user's behalf. `allowPrivateNetworks` defaults to true when
   * `host` is a loopback address and false otherwise (see docs/security.md, "The outbound policy").
   */
  outbound?: OutboundOptions;
  /** the job queue's poll and expiry settings */
  jobs?: JobQueueOptions;
  log?: (message: string, error?: unknown) => void;
  /** seals automations' app accounts (see openWorkspace) */
  box?: SecretBox;
  /**
   * The word callers use for the service's namespace: `svc` (default, as the spec writes it) or
   * `fibery` (as the real service does). See docs/workspace.md, "The namespace".
   */
  namespace?: Namespace;
  /** adds routes and a part to close first (the app host: see host/start-dev-workspace.ts) */
  extend?: (workspace: Workspace) => Promise<{ router: Router; close(): Promise<void> }>;
}

export interface RunningWorkspace extends Workspace {
  /** base address, e.g. http://127.0.0.1:3100 (https:// when serving TLS) */
  readonly url: string;
}

/** Opens the workspace and serves the data API over HTTP. `close()` stops both. */
export async function startWorkspace(options: StartWorkspaceOptions = {}): Promise<RunningWorkspace> {
  const host = options.host ?? '127.0.0.1';
  // Known once the server listens (the port may be any free one).
  let url: string | undefined;
  const workspace = await openWorkspace({
    publicUrl: () => url,
    outbound: {
      ...options.outbound,
      allowPrivateNetworks: options.outbound?.allowPrivateNetworks ?? isLoopbackHost(host),
    },
    ...(options.database ? { database: options.database } : {}),
    ...(options.adminToken ? { adminToken: options.adminToken } : {}),
    ...(options.webhooks !== undefined ? { webhooks: options.webhooks } : {}),
    ...(options.jobs ? { jobs: options.jobs } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.box ? { box: options.box } : {}),
    ...(options.budgets ? { budgets: options.budgets } : {}),
    ...(options.namespace ? { namespace: options.namespace } : {}),
  });
  const extension = options.extend
    ? await options.extend(workspace).catch(async (error) => {
        await workspace.close();
        throw error;
      })
    : undefined;
  const app = createApp(workspace, {
    rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
    addressLimits: { ...DEFAULT_ADDRESS_LIMITS, ...options.addressLimits },
    ...(options.log ? { log: options.log } : {}),
    ...(extension ? { router: extension.router } : {}),
    ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = hardenServer(createWorkspaceServer(app, options.tls), {
      ...SERVER_LIMITS,
      ...options.server,
    });
    s.once('error', reject);
    s.listen(options.port ?? 0, host, () => resolve(s));
  }).catch(async (error) => {
    await workspace.close();
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  // An address this machine reaches the workspace at: a wildcard host names its loopback address
  // ('localhost' may resolve to the other family than the one listened on).
  const shownHost =
    host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  url = `${options.tls ? 'https' : 'http'}://${shownHost}:${port}`;
  return Object.assign(Object.create(null) as object, workspace, {
    url,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await extension?.close();
      await workspace.close();
    },
  }) as RunningWorkspace;
}
