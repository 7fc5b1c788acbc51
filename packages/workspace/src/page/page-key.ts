import type { Queryable } from '../db/driver.js';

// The page's signing key (login form tokens, session form tokens), kept in the workspace's
// database: every process on one database signs and checks alike, so a form served by one is
// taken by another, and a restart changes nothing. Made once, by whichever process asks first.

const KEY = 'page_key';
const loaded = new WeakMap<Queryable, Promise<Buffer>>();

/** The workspace's page key (made on first use); read once per process, as it never changes. */
export function pageKey(db: Queryable): Promise<Buffer> {
  let key = loaded.get(db);
  if (!key) {
    key = readOrMake(db);
    // A failed read (the database briefly away) is tried again by the next request.
    key.catch(() => loaded.delete(db));
    loaded.set(db, key);
  }
  return key;
}

async function readOrMake(db: Queryable): Promise<Buffer> {
  await db.query(
    `INSERT INTO svc_meta (key, value) VALUES ('${KEY}', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))
     ON CONFLICT (key) DO NOTHING`,
  );
  const { rows } = await db.query<{ value: string }>(`SELECT value FROM svc_meta WHERE key = '${KEY}'`);
  return Buffer.from(rows[0]!.value, 'hex');
}
