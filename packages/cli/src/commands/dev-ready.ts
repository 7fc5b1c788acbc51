// `weft dev`'s Ready line: where the page is and how to sign in to it, whichever start this is.

export type TokenSource = 'printed' | 'env' | 'stored';

const HOW: Record<TokenSource, string> = {
  printed: 'sign in with the admin token printed above',
  env: 'sign in with the token in WEFT_ADMIN_TOKEN',
  stored:
    "sign in with the admin token printed on this folder's first start, or run weft dev --new-token for a fresh one",
};

export function readyLine(workspaceUrl: string, token: TokenSource): string {
  return `Ready. The page: ${workspaceUrl}/ui (${HOW[token]}). Ctrl-C stops the workspace.\n`;
}
