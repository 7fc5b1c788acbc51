// Which database an account names, and the connection pools to them. A pool is a performance
// cache of connections, not sync state: it is keyed by a hash of the connection details, bounded,
// and closed when it falls out of use.
import { createHash } from 'node:crypto';
import { InvalidAccountError } from '@weft/core';
import { type Database, postgresDatabase } from './database.js';

/** The account's fields as the app reads them. */
export interface SqlAccount {
  url?: string | undefined;
  password?: string | undefined;
  schemas?: string | undefined;
}

export interface DatabaseSource {
  /** The database an account names: its URL, else the server's DATABASE_URL, else the embedded one. */
  open(account: SqlAccount): Promise<Database>;
  /** What the account's database is called in messages (never with credentials). */
  describe(account: SqlAccount): string;
  close(): Promise<void>;
}

const MAX_POOLS = 16;

export interface SourceOptions {
  /** The server's own database (DATABASE_URL), used when an account names none. */
  databaseUrl?: string | undefined;
  /** The embedded database, used when neither the account nor the server names one. */
  embedded: () => Promise<Database>;
}

export function databaseSource(options: SourceOptions): DatabaseSource {
  const pools = new Map<string, Database>();
  const target = (account: SqlAccount): { url: string; password?: string } | null => {
    const url = account.url?.trim() || options.databaseUrl?.trim();
    if (!url) return null;
    return { url, ...(account.password ? { password: account.password } : {}) };
  };
  return {
    async open(account) {
      const t = target(account);
      if (!t) return options.embedded();
      if (!/^postgres(ql)?:\/\//.test(t.url)) {
        throw new InvalidAccountError('The connection string must start with postgres:// or postgresql://');
      }
      const key = createHash('sha256')
        .update(t.url)
        .update('\u0000')
        .update(t.password ?? '')
        .digest('base64url');
      let db = pools.get(key);
      if (db) {
        // Most recently used last, so the oldest is closed first.
        pools.delete(key);
        pools.set(key, db);
        return db;
      }
      db = postgresDatabase(t.url, t.password);
      pools.set(key, db);
      while (pools.size > MAX_POOLS) {
        const [oldest, pool] = pools.entries().next().value!;
        pools.delete(oldest);
        void pool.close().catch(() => {});
      }
      return db;
    },
    describe(account) {
      const t = target(account);
      if (!t) return 'the embedded demo database';
      try {
        const u = new URL(t.url);
        return `${u.pathname.replace(/^\//, '') || 'postgres'} on ${u.hostname}`;
      } catch {
        return 'the database';
      }
    },
    async close() {
      await Promise.all([...pools.values()].map((p) => p.close().catch(() => {})));
      pools.clear();
    },
  };
}

/** The schemas an account reads: its comma-separated list, default `public`. */
export function accountSchemas(account: SqlAccount): string[] {
  const list = (account.schemas ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length > 0 ? [...new Set(list)] : ['public'];
}
