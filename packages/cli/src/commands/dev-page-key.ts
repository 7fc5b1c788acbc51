// The page key `weft dev` hands the app it runs (WEFT_PAGE_KEYS), unless the developer set one.
// Without it the app signs its page cursors with a key made at each start, so a restart after a
// file change left the sync under way holding cursors the new process refused, and the app
// warned about replicas at every start. The key is kept beside the workspace's own secret key
// (mode 0600), so cursors also survive a restart of `weft dev` on the same data folder; an
// in-memory workspace, gone at exit, gets a key for this process only.
import { randomBytes } from 'node:crypto';

export const APP_PAGE_KEY_FILE = 'app-page.key';

/** The key for the app's WEFT_PAGE_KEYS: read from `dir` (made there when missing), else new. */
export async function devAppPageKey(dir: string | undefined): Promise<string> {
  if (dir === undefined) return randomBytes(32).toString('base64url');
  // The workspace's key-file module only: `weft dev --help` loads nothing of the workspace.
  const { keyFile } = await import('@weft/workspace/key-file');
  return keyFile(dir, APP_PAGE_KEY_FILE);
}
