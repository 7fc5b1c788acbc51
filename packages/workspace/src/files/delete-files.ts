import type { Queryable } from '../db/driver.js';

/** Removes the stored contents of files by their secrets (once their svc/file entities are gone). */
export async function deleteFileChunks(q: Queryable, secrets: string[]): Promise<void> {
  if (secrets.length === 0) return;
  await q.query(`DELETE FROM svc_file_chunks WHERE secret = ANY($1::uuid[])`, [secrets]);
}
