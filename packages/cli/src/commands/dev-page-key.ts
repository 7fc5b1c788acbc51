// The page key `weft dev` hands the app it runs (WEFT_PAGE_KEYS), unless the developer set one.
// Without it the app signs its page cursors with a key made at each start, so a restart after a
// file change left the sync under way holding cursors the new process refused, and the app
// warned about replicas at every start. The key is kept beside the workspace's own secret key
// (mode 0600), so cursors also survive a restart of `weft dev` on the same data folder; an
// in-memory workspace, gone at exit, gets a key for this process only.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const APP_PAGE_KEY_FILE = 'app-page.key';

/** The key for the app's WEFT_PAGE_KEYS: read from `dir` (made there when missing), else new. */
export function devAppPageKey(dir: string | undefined): string {
  if (dir === undefined) return randomBytes(32).toString('base64url');
  const file = join(dir, APP_PAGE_KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process made it first: its key is the one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readFileSync(file, 'utf8').trim();
}
