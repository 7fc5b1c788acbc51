import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A key kept in a file of a data folder, for local use: made once (32 random bytes, base64url,
// mode 0600) by whichever process asks first, then read by every later one. A module of its own,
// without imports of the workspace, so that `weft dev` reads one before the workspace has loaded.

/** The key in `<dir>/<name>`, made there when missing. */
export function keyFile(dir: string, name: string): string {
  const file = join(dir, name);
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
