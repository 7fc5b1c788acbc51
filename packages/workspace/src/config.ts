import { namespaceFromEnv } from '@weft/namespace';
import { budgetsFromEnv } from './commands/budgets.js';
import type { DatabaseOption } from './db/open-driver.js';
import { tlsFromEnv } from './http/tls.js';
import { OutboundPolicy } from './outbound/index.js';
import type { AddressLimits } from './rate-limit/address-limits.js';
import { DEFAULT_RATE_LIMIT } from './start-workspace.js';

export const DEFAULT_PORT = 3100;
export const DEFAULT_DATA_DIR = '.weft';

/** The workspace's settings from the environment (PORT, HOST, DATABASE_URL, WEFT_*). */
export function configFromEnv(env: NodeJS.ProcessEnv) {
  const port = env.PORT ? Number(env.PORT) : DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const rate =
    env.WEFT_RATE_LIMIT === undefined || env.WEFT_RATE_LIMIT === ''
      ? DEFAULT_RATE_LIMIT
      : Number(env.WEFT_RATE_LIMIT);
  if (!Number.isFinite(rate) || rate < 0)
    throw new Error('WEFT_RATE_LIMIT must be a number of requests per second (0: off)');
  const addressLimits: Partial<AddressLimits> = {};
  for (const [key, name] of [
    ['pagesPerMinute', 'WEFT_PAGE_RATE_LIMIT'],
    ['unknownTokensPerMinute', 'WEFT_UNKNOWN_TOKEN_RATE_LIMIT'],
  ] as const) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(`${name} must be a whole number of requests per minute (0: off)`);
    addressLimits[key] = value;
  }
  let database: DatabaseOption;
  if (env.DATABASE_URL) {
    const schema = env.WEFT_PG_SCHEMA;
    if (schema !== undefined && schema !== '' && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new Error('WEFT_PG_SCHEMA must be a lower-case Postgres identifier');
    }
    database = { kind: 'postgres', url: env.DATABASE_URL, ...(schema ? { schema } : {}) };
  } else if (env.WEFT_DATA_DIR === ':memory:') database = { kind: 'memory' };
  else database = { kind: 'pglite', dataDir: env.WEFT_DATA_DIR || DEFAULT_DATA_DIR };
  const tls = tlsFromEnv(env);
  return {
    port,
    // this machine only unless HOST says otherwise: the workspace holds data and an admin token
    host: env.HOST || '127.0.0.1',
    rateLimit: rate,
    budgets: budgetsFromEnv(env),
    addressLimits,
    database,
    outbound: OutboundPolicy.optionsFromEnv(env),
    namespace: namespaceFromEnv(env),
    ...(env.WEFT_ADMIN_TOKEN ? { adminToken: env.WEFT_ADMIN_TOKEN } : {}),
    ...(tls ? { tls } : {}),
  };
}

/**
 * A line to print when the workspace listens on every interface (HOST=0.0.0.0 or ::): anyone who
 * can reach this machine can reach it then. Undefined for any other host.
 */
export function everyInterfaceNotice(host: string): string | undefined {
  return host === '0.0.0.0' || host === '::'
    ? `Listening on every network interface (HOST=${host}): other machines can reach this workspace`
    : undefined;
}
