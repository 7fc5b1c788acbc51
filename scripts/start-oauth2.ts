// `pnpm start`'s sign-in for an OAuth 2 sample (git-issues): the workspace host's own OAuth 2
// flow, played by a script instead of a browser. The host asks the app for the provider's
// authorize address (with the workspace's callback); fetching it follows the provider's redirect
// back to the callback, where the app exchanges the code and the host creates the source. That
// completes without a person only when the provider approves at once: git-issues' demo GitHub
// does in its demo mode (no real GitHub configured), as GitHub does for a user who already
// authorized the app. A provider that shows a page instead leaves the address to open in a browser.
// (The root has no zod of its own; the two answers are checked by hand below.)

/** What the workspace host answers for a source (the fields this script uses). */
export interface StartedSource {
  id: string;
  namespace: string;
  types: string[];
}

export type OAuth2Registration =
  | { source: StartedSource }
  /** The provider asks a person: open this address in a browser to finish the sign-in. */
  | { authorizeUrl: string };

function startAnswer(body: unknown): { redirectUri: string } {
  const redirectUri = (body as { redirectUri?: unknown } | null)?.redirectUri;
  if (typeof redirectUri !== 'string' || !/^https?:\/\//.test(redirectUri)) {
    throw new Error('the workspace answered no authorize address');
  }
  return { redirectUri };
}

function callbackAnswer(body: unknown): StartedSource {
  const source = (body as { source?: Partial<StartedSource> } | null)?.source;
  if (
    typeof source?.id !== 'string' ||
    typeof source.namespace !== 'string' ||
    !Array.isArray(source.types) ||
    !source.types.every((t) => typeof t === 'string')
  ) {
    throw new Error('the workspace answered no source');
  }
  return { id: source.id, namespace: source.namespace, types: source.types };
}

/** What the source is created with once signed in: the app's address and its filter. */
export interface OAuth2SourceRequest {
  url: string;
  filter?: Record<string, unknown>;
}

/** Asks the workspace host for the provider's authorize address for the app (step 1 of its flow). */
export type StartOAuth2 = (request: OAuth2SourceRequest) => Promise<string>;

/** Step 1 over HTTP: `POST /api/host/oauth2/start` with an admin's token. */
export function startOverHttp(workspaceUrl: string, adminToken: string): StartOAuth2 {
  return async (request) => {
    const started = await fetch(`${workspaceUrl}/api/host/oauth2/start`, {
      method: 'POST',
      headers: { authorization: `Token ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    if (!started.ok) throw new Error(`the workspace refused the sign-in: ${await messageOf(started)}`);
    return startAnswer(await started.json()).redirectUri;
  };
}

/** Signs the app in through the workspace host and returns the source it created. */
export async function registerOAuth2Source(
  request: OAuth2SourceRequest,
  start: StartOAuth2,
): Promise<OAuth2Registration> {
  const redirectUri = await start(request);
  // Redirects are followed: provider → the workspace's callback (which needs no token).
  const landed = await fetch(redirectUri, { redirect: 'follow' });
  if ((landed.headers.get('content-type') ?? '').startsWith('text/html')) {
    await landed.body?.cancel();
    return { authorizeUrl: redirectUri };
  }
  if (!landed.ok) throw new Error(`the sign-in did not complete: ${await messageOf(landed)}`);
  return { source: callbackAnswer(await landed.json()) };
}

/** The `{message}` of an error answer, else its status (never the request, which may hold secrets). */
async function messageOf(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as { message?: unknown } | null;
  return typeof body?.message === 'string' ? body.message : `HTTP ${response.status}`;
}
