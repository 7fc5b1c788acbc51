// `weft dev`'s source: the app found again (by its URL, or by its name when a restarted app moved)
// or added with the chosen authentication (`--auth`, default the app's first), as the service adds
// it. An OAuth account is connected through the provider: the authorize address is printed (never
// opened), the callback is awaited on the workspace, and weft dev goes on. `--account` for a source
// that exists already is validated by the app and replaces the stored account.
import { type HostedWorkspace, SYSTEM_KEYS } from '@weft/workspace';
import { type CliIo, UsageError } from '../io.js';

type Json = Record<string, unknown>;
/** A source; `warnings` only when it was just added (what its answers needed taken leniently). */
type Source = Omit<Awaited<ReturnType<HostedWorkspace['apps']['addSource']>>, 'warnings'> & {
  warnings?: string[];
};

export interface DevSourceOptions {
  /** account field values, or OAuth tokens obtained elsewhere */
  account?: Json | undefined;
  /** the authentication id; default the app's first */
  auth?: string | undefined;
  types?: string[] | undefined;
  filter?: Json | undefined;
  intervalSeconds?: number | undefined;
  /** how often the OAuth wait looks for its source (ms); default 250 */
  pollMs?: number;
  /** how long the OAuth wait lasts; default an hour, as long as the connection's state works */
  oauthWaitMs?: number;
}

const OAUTH_IDS = new Set(['oauth', 'oauth2']);

export async function devSource(
  ws: HostedWorkspace,
  appUrl: string,
  options: DevSourceOptions,
  io: CliIo,
): Promise<Source> {
  const { account, types, filter, intervalSeconds } = options;
  const descriptor = await ws.apps.client(appUrl).descriptor();
  const auths = descriptor.authentication;
  // An account that names its authentication (`auth`, as the service's accounts carry it) chooses it.
  const chosen = options.auth ?? (typeof account?.auth === 'string' ? account.auth : undefined);
  const auth = chosen ? auths.find((a) => a.id === chosen) : auths[0];
  if (!auth)
    throw new UsageError(
      `${options.auth ? '--auth' : '--account'}: the app has no authentication ${JSON.stringify(chosen)} (it has ${auths.map((a) => a.id).join(', ')})`,
    );
  const sources = await ws.apps.list();
  const existing =
    sources.find((s) => s.url === appUrl.replace(/\/+$/, '')) ??
    sources.find((s) => s.name === descriptor.name);
  const settings = {
    ...(types ? { types } : {}),
    ...(filter ? { filter } : {}),
    ...(intervalSeconds ? { intervalSeconds } : {}),
  };

  if (existing) {
    let source = await ws.apps.setUrl(existing.id, appUrl);
    if (chosen && chosen !== source.authId)
      io.stdout.write(
        `The source keeps its authentication ${source.authId}: remove it to add the app with ${chosen}\n`,
      );
    if (account) {
      source = await ws.apps.setAccount(source.id, account);
      io.stdout.write(`Account replaced: validated by the app as ${source.accountName ?? source.authId}\n`);
    } else if (source.authId !== 'none') {
      io.stdout.write(
        `Using the stored account ${source.accountName ?? `(${source.authId})`} (--account replaces it)\n`,
      );
    }
    if (Object.keys(settings).length > 0) source = await ws.apps.updateSource(source.id, settings);
    return source;
  }

  if (OAUTH_IDS.has(auth.id) && !account) return connectOAuth(ws, appUrl, auth.id, settings, options, io);
  if (account && !OAUTH_IDS.has(auth.id)) {
    const declared = new Set((auth.fields ?? []).map((f) => f.id));
    const extra = Object.keys(account).filter((k) => !declared.has(k) && !SYSTEM_KEYS.includes(k));
    if (extra.length > 0)
      io.stdout.write(
        `Account keys the authentication ${auth.id} does not declare are passed to the app as they are: ${extra.join(', ')}\n`,
      );
  }
  const added = await ws.apps.addSource({
    url: appUrl,
    authId: auth.id,
    ...(account ? { fields: account } : {}),
    ...settings,
  });
  // What the real service would take from the app although the protocol's tables would not.
  if (added.warnings.length > 0)
    io.stdout.write(
      `The app's answers were read leniently, as the service reads them:\n${added.warnings.map((w) => `  ${w}\n`).join('')}`,
    );
  return added;
}

/** Starts the OAuth connection, prints where to authorize, and waits for the source the callback creates. */
async function connectOAuth(
  ws: HostedWorkspace,
  appUrl: string,
  kind: string,
  settings: { types?: string[]; filter?: Json; intervalSeconds?: number },
  options: DevSourceOptions,
  io: CliIo,
): Promise<Source> {
  const input = { url: appUrl, ...settings };
  const started = kind === 'oauth2' ? await ws.apps.startOAuth2(input) : await ws.apps.startOAuth1(input);
  const before = new Set((await ws.apps.list()).map((s) => s.id));
  io.stdout.write(
    `Authorize the app (${kind === 'oauth2' ? 'OAuth 2' : 'OAuth 1'}) by opening this address in a browser:\n  ${started.redirectUri}\nWaiting for the provider to send the browser back to ${ws.url}/hooks/${kind === 'oauth2' ? 'oauth2' : 'oauth1'}/callback …\n`,
  );
  const until = Date.now() + (options.oauthWaitMs ?? 3_600_000);
  const url = appUrl.replace(/\/+$/, '');
  const added = async () => (await ws.apps.list()).find((s) => !before.has(s.id) && s.url === url);
  for (;;) {
    const source = await added();
    if (source) {
      io.stdout.write(`Authorized: account ${source.accountName ?? source.authId}\n`);
      return source;
    }
    // The callback came (to this workspace) and failed: the connection is used up.
    const failed = ws.apps.oauthFailure(started.state);
    if (failed) throw new Error(`the OAuth connection failed: ${failed}`);
    if (Date.now() > until) throw new Error('the OAuth authorization was not completed in time');
    await new Promise((r) => setTimeout(r, options.pollMs ?? 250));
  }
}
