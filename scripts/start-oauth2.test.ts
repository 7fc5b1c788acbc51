// `pnpm start`'s sign-in of git-issues, over real processes and HTTP: the git-issues app as
// `pnpm start` runs it (its own process, on its embedded demo GitHub), a local workspace with its
// app host, and the script's sign-in through the host's OAuth 2 API, following the redirects
// with fetch; then the source syncs with the token it got. And a provider that asks a person
// (the stand-in outside its demo mode) leaves the address to open.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { silentLogger, startServer } from '../packages/core/src/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tsNodeArgs } from './test-support/checkout-node.js';
import { createGitIssuesApp } from '../apps/git-issues/src/app.js';
import { CLIENT, startStandIn } from '../apps/git-issues/src/demo-github.js';
import { type HostedWorkspace, startHostedWorkspace } from '../packages/workspace/src/index.js';
import { registerOAuth2Source, startOverHttp } from './start-oauth2.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'start-oauth2-test-admin-token';

let app: ChildProcess;
let appUrl: string;
let ws: HostedWorkspace;

/** Starts git-issues as `pnpm start` does (no GitHub configured), on a free port; resolves with its address. */
async function startGitIssues(): Promise<{ child: ChildProcess; url: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1' };
  for (const name of ['GITHUB_API_URL', 'GITHUB_URL', 'OAUTH2_CLIENT_ID', 'OAUTH2_CLIENT_SECRET'])
    delete env[name];
  const child = spawn(process.execPath, [...tsNodeArgs(), 'src/main.ts'], {
    cwd: `${ROOT}apps/git-issues`,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Git issues listening on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`git-issues exited ${code}: ${out}`)));
  });
  return { child, url };
}

beforeAll(async () => {
  const started = await startGitIssues();
  app = started.child;
  appUrl = started.url;
  ws = await startHostedWorkspace({ adminToken: TOKEN, rateLimit: 0, log: () => {} });
}, 60_000);

afterAll(async () => {
  await ws?.close();
  if (app && app.exitCode === null) {
    app.kill('SIGTERM');
    await once(app, 'exit');
  }
});

describe('pnpm start: git-issues signed in through the workspace’s OAuth 2 flow', () => {
  it('completes the sign-in against the demo GitHub and syncs the source', async () => {
    // As `pnpm start` asks: one repository (the host installs the app's webhook, which needs one).
    const signedIn = await registerOAuth2Source(
      { url: appUrl, filter: { repositories: ['octo-org/widgets'] } },
      startOverHttp(ws.url, TOKEN),
    );
    if (!('source' in signedIn)) throw new Error(`expected a source, got ${JSON.stringify(signedIn)}`);
    // The app's preselected types.
    expect(signedIn.source.types).toEqual(['repository', 'issue']);
    const listed = await ws.apps.list();
    expect(listed.map((s) => s.url)).toContain(appUrl);
    const run = await ws.apps.sync(signedIn.source.id, { wait: true });
    expect(run.error ?? null).toBeNull();
    expect(run.status).toBe('succeeded');
    // The demo GitHub's widgets: the repository and its 98 issues (the other 32 are pull requests).
    expect(run.rowsSet).toBe(99);
  });

  it('refuses without an admin token, and leaves the address to open when the provider asks a person', async () => {
    await expect(registerOAuth2Source({ url: appUrl }, startOverHttp(ws.url, 'not-a-token'))).rejects.toThrow(
      /the workspace refused the sign-in/,
    );
    const standIn = await startStandIn(0);
    const asking = await startServer(
      createGitIssuesApp({
        apiUrl: standIn.url,
        webUrl: standIn.url,
        clientId: CLIENT.id,
        clientSecret: CLIENT.secret,
      }),
      { port: 0, host: '127.0.0.1', announce: false, logger: silentLogger },
    );
    try {
      const signedIn = await registerOAuth2Source({ url: asking.url }, startOverHttp(ws.url, TOKEN));
      expect(signedIn).toEqual({
        authorizeUrl: expect.stringMatching(`^${standIn.url}/login/oauth/authorize\\?`),
      });
    } finally {
      await asking.close();
      await standIn.close();
    }
  });
});
