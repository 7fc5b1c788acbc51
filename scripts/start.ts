// `pnpm start`: every sample app on its embedded default, and a local workspace with the
// integration samples registered as sources and synced, so one address shows them all. The
// OAuth 2 sample (git-issues) signs in through the workspace's own OAuth 2 flow, against its demo
// GitHub, which approves at once in its demo mode (see start-oauth2.ts).
// The apps keep their own default ports (PORT is for the workspace; passing it on would send
// every app to the same port). The workspace keeps its data in WEFT_DATA_DIR (default .weft/) or
// DATABASE_URL, and finds its sources again by URL on the next start.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  configFromEnv,
  type HostedWorkspace,
  LOCAL_LEASE_SECONDS,
  startHostedWorkspace,
} from '../packages/workspace/src/index.js';
import { type ChatInbox, startChatInbox } from '../packages/workspace/src/quickstart/chat-inbox.js';
import { ensureSampleRule } from '../packages/workspace/src/quickstart/sample-rule.js';
import { registerOAuth2Source, type StartOAuth2, startOverHttp } from './start-oauth2.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Sample {
  name: string;
  url: string;
  /** Account fields; absent for an OAuth 2 sample, whose account comes from its sign-in. */
  fields?: Record<string, string>;
  oauth2?: true;
  filter?: Record<string, unknown>;
}

/** The integration samples; each runs with no set-up on its embedded default. */
const SOURCES: Sample[] = [
  { name: 'Bookshelf', url: 'http://localhost:3101' },
  { name: 'Calendar feed', url: 'http://localhost:3103' },
  { name: 'SQL tables', url: 'http://localhost:3105', fields: { schemas: 'public' } },
  // One repository: the host installs the app's webhook (live updates) with every new source,
  // and git-issues' hooks are per repository.
  {
    name: 'Git issues',
    url: 'http://localhost:3106',
    oauth2: true,
    filter: { repositories: ['octo-org/widgets'] },
  },
];

function startApps(): ChildProcess {
  const env = { ...process.env };
  delete env.PORT;
  // A demo on one machine: the apps' request lines would bury the workspace's own output, and
  // one key for all of them is right for single processes (no replica warning). Set either
  // variable to see or choose otherwise.
  env.WEFT_LOG_LEVEL ??= 'warn';
  env.WEFT_PAGE_KEYS ??= randomBytes(32).toString('hex');
  const pnpm = process.env.npm_execpath;
  const [command, args] =
    pnpm && /pnpm/.test(pnpm)
      ? [process.execPath, [pnpm, 'run', 'start:apps']]
      : ['npx', ['-y', 'pnpm@10.34.8', 'run', 'start:apps']];
  // A process group of their own, so that stopping this script stops every app (pnpm does not
  // pass SIGTERM on to the apps it started).
  const apps = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // Their output is passed on until this script stops them: then their pnpm reports the apps it
  // sees killed ("ELIFECYCLE Command failed"), which is this script's doing, not a failure.
  apps.stdout!.on('data', (chunk: Buffer) => stopping || process.stdout.write(chunk));
  apps.stderr!.on('data', (chunk: Buffer) => stopping || process.stderr.write(chunk));
  return apps;
}

/** Signals the apps' whole process group (pnpm does not pass signals on to the apps it started). */
function killApps(apps: ChildProcess, signal: NodeJS.Signals): void {
  if (apps.pid === undefined) return;
  try {
    process.kill(-apps.pid, signal);
  } catch {
    // already gone
  }
}

async function waitFor(url: string, apps: ChildProcess, ms = 90_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline && apps.exitCode === null) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 300));
  }
  return false;
}

async function register(ws: HostedWorkspace, source: Sample): Promise<void> {
  let added: { id: string; namespace: string; types: string[] } | undefined = (await ws.apps.list()).find(
    (s) => s.url === source.url,
  );
  if (!added && source.oauth2) {
    // The host's HTTP API when this run knows an admin token; else the same call in process
    // (a later start on kept data, whose token was shown only the first time).
    const token = ws.adminToken;
    const start: StartOAuth2 = token
      ? startOverHttp(ws.url, token)
      : async (request) => (await ws.apps.startOAuth2(request)).redirectUri;
    const signedIn = await registerOAuth2Source(
      { url: source.url, ...(source.filter ? { filter: source.filter } : {}) },
      start,
    );
    if ('authorizeUrl' in signedIn) {
      console.log(
        `${source.name} needs a sign-in: open ${signedIn.authorizeUrl} in a browser, then sync it.`,
      );
      return;
    }
    added = signedIn.source;
  }
  added ??= await ws.apps.addSource({ url: source.url, ...(source.fields ? { fields: source.fields } : {}) });
  const run = await ws.apps.sync(added.id, { wait: true });
  console.log(
    run.status === 'succeeded'
      ? `Synced ${source.name}: ${run.rowsSet} rows into ${added.types.length} types (${added.namespace})`
      : `Sync of ${source.name} failed: ${run.error}`,
  );
}

/** chat-notify, the action app the sample rule runs */
const CHAT_NOTIFY_URL = 'http://localhost:3102';
/** the local chat receiver's port (the apps have 3101-3106); any free one when it is taken */
const INBOX_PORT = 3107;

/** The chat receiver and the sample rule posting every new book to it (after the first sync). */
async function sampleRule(ws: HostedWorkspace): Promise<ChatInbox | undefined> {
  const inbox = await startChatInbox(ws, INBOX_PORT).catch(() => startChatInbox(ws, 0));
  if (!(await waitFor(CHAT_NOTIFY_URL, apps))) {
    console.error(`Chat notify did not answer at ${CHAT_NOTIFY_URL}; the sample rule is not set up.`);
    return inbox;
  }
  const rule = await ensureSampleRule(ws, { chatNotifyUrl: CHAT_NOTIFY_URL, inboxUrl: inbox.url });
  if (!rule) console.error('Bookshelf is not synced yet; the sample rule is added on a later start.');
  else if (rule.created) console.log('Added the rule "New book to chat" (see Automations on the page).');
  return inbox;
}

let stopping = false;
let stoppedAt = 0;
const apps = startApps();
let ws: HostedWorkspace | undefined;
let inbox: ChatInbox | undefined;
// Ctrl-C is safe from the first moment: the apps run in a process group of their own (the
// terminal's SIGINT does not reach them), so this process stops them whenever it ends, also
// before "Ready.". A second Ctrl-C does not wait for the workspace to close. Under `pnpm start`
// one Ctrl-C may arrive twice (from the terminal, and passed on by pnpm), so a repeat within a
// second is the same one. A clean stop exits 0: pnpm says nothing then (any other code, or a
// death by the signal, makes it print "ELIFECYCLE Command failed"); the package script `exec`s
// node, so no shell in between dies of the signal either.
const stop = async (signal: NodeJS.Signals) => {
  if (stopping) {
    if (Date.now() - stoppedAt < 1000) return;
    killApps(apps, 'SIGKILL');
    process.exit(130);
  }
  stopping = true;
  stoppedAt = Date.now();
  console.error(`\n${signal}: stopping the sample apps and the workspace (again to force)…`);
  killApps(apps, 'SIGTERM');
  await inbox?.close().catch(() => {});
  await ws?.close().catch(() => {});
  process.exit(0);
};
process.on('SIGINT', (signal) => void stop(signal));
process.on('SIGTERM', (signal) => void stop(signal));
process.on('exit', () => killApps(apps, 'SIGTERM'));
apps.on('exit', (code) => {
  if (code && !stopping) {
    console.error(`The sample apps stopped (exit ${code}).`);
    process.exit(code);
  }
});

const env: NodeJS.ProcessEnv = { ...process.env, PORT: process.env.PORT ?? '3100' };
if (!env.DATABASE_URL && !env.WEFT_DATA_DIR) env.WEFT_DATA_DIR = resolve(ROOT, '.weft');
const config = configFromEnv(env);
const keyDir =
  env.WEFT_DATA_DIR && env.WEFT_DATA_DIR !== ':memory:' ? env.WEFT_DATA_DIR : resolve(ROOT, '.weft');
try {
  // As weft dev: a run left by a killed start blocks the next one for seconds, not a minute.
  ws = await startHostedWorkspace({
    ...config,
    keyDir,
    log: (message) => console.error(message),
    hostOptions: { runLeaseSeconds: LOCAL_LEASE_SECONDS },
  });
} catch (error) {
  console.error(`The workspace could not start: ${(error as Error).message}`);
  process.exit(1);
}
const workspaceUrl = ws.url.replace('127.0.0.1', 'localhost');
console.log(`Workspace listening on ${workspaceUrl}`);
if (ws.generatedAdminToken) console.log(`Admin token: ${ws.adminToken}`);

for (const source of SOURCES) {
  if (!(await waitFor(source.url, apps))) {
    console.error(`${source.name} did not answer at ${source.url}; not registered.`);
    continue;
  }
  try {
    await register(ws, source);
  } catch (error) {
    console.error(`${source.name}: ${(error as Error).message}`);
  }
}

try {
  inbox = await sampleRule(ws);
} catch (error) {
  console.error(`The sample rule: ${(error as Error).message}`);
}

console.log(`
Ready. Open ${workspaceUrl}/ui/ and sign in with the admin token (WEFT_ADMIN_TOKEN, or the one printed
when the workspace first started), or ask the data API:
  curl -s ${workspaceUrl}/api/commands -H "Authorization: Token <admin token>" \\
    -H 'content-type: application/json' -d '[{"command":"svc.schema/query"}]'
A rule posts every new book to a local chat receiver; add a book, then see the message at
${workspaceUrl}/ui/type?name=inbox%2Fmessage :
  curl -s ${workspaceUrl}/api/commands -H "Authorization: Token <admin token>" \\
    -H 'content-type: application/json' \\
    -d '[{"command":"svc.entity/create","args":{"type":"bookshelf/book","entity":{"bookshelf/name":"My first book"}}}]'
Check an app against the protocol: npx -y pnpm@10.34.8 weft check http://localhost:3101
Ctrl-C stops everything.`);
