// Where a data page's CPU goes: starts the benchmark's server child (`servers.ts`) under
// `node --cpu-prof`, drives one side with autocannon, and prints the main thread's time per
// request by function, self and inclusive (a function and all it called). The profiler samples
// wall-clock time, so on a busy machine its absolute figures run high; compare sides within one
// run of this script, and take rates from the benchmark itself.
//   npx tsx bench/profile-page.ts [weft-item|weft-batch|hand|hand-item|weft-validate|hand-validate] [seconds]
// BENCH_PAGE sets the page size (1 isolates the per-request cost); PROFILE_TOP the rows shown;
// PROFILE_KEEP=1 keeps the .cpuprofile files (for call stacks, or Chrome DevTools) and prints where.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { silentLogger } from '../src/index.js';
import { resolvePageKeys } from '../src/paging/page-keys.js';
import { encodePageState } from '../src/paging/page-state.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const kind = process.argv[2] ?? 'weft-item';
const seconds = Number(process.argv[3] ?? 5);
const shown = Number(process.env.PROFILE_TOP ?? 40);

function requestBody(): unknown {
  if (kind.endsWith('-validate')) return { id: 'none', fields: {} };
  const type = kind === 'weft-batch' || kind === 'hand' ? 'issue' : 'issueStream';
  if (kind.startsWith('hand')) {
    return { requestedType: type, types: [type], account: {}, filter: {}, pagination: { offset: 5000 } };
  }
  const keys = resolvePageKeys(['bench-page-key'], silentLogger);
  return {
    requestedType: type,
    types: [type],
    account: {},
    filter: {},
    pagination: encodePageState(type, { cursor: 5000, skip: 0 }, keys),
    lastSynchronizedAt: null,
  };
}

async function profileServer(): Promise<{ profile: Profile; requests: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-profile-'));
  const child = spawn(
    process.execPath,
    [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      '--import',
      'tsx',
      fileURLToPath(new URL('./servers.ts', import.meta.url)),
    ],
    { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: process.env },
  );
  try {
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    const ports = JSON.parse(line.toString()) as { weft: number; hand: number };
    const result = await autocannon({
      url: `http://127.0.0.1:${kind.startsWith('hand') ? ports.hand : ports.weft}${kind.endsWith('-validate') ? '/validate' : '/api/v1/synchronizer/data'}`,
      method: 'POST',
      body: JSON.stringify(requestBody()),
      headers: { 'content-type': 'application/json' },
      connections: 16,
      duration: seconds,
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error('profiled requests failed');
    // A clean exit writes the profile; a signal would not.
    child.send('exit');
    await once(child, 'exit');
    // The main thread's profile is the largest (a loader thread writes a small one).
    const files = readdirSync(dir)
      .filter((file) => file.endsWith('.cpuprofile'))
      .map((file) => readFileSync(join(dir, file), 'utf8'))
      .sort((a, b) => b.length - a.length);
    if (!files[0]) throw new Error('no profile was written');
    return { profile: JSON.parse(files[0]) as Profile, requests: result.requests.total };
  } finally {
    child.kill();
    if (process.env.PROFILE_KEEP) console.log(`profile kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

function label(node: ProfileNode): string {
  const where = node.callFrame.url
    .replace(/^.*node_modules\/\.pnpm\/([^/]+)\/.*?([^/]+)$/, '$1:$2')
    .replace(/^.*\/(src|bench)\//, '$1/');
  return `${node.callFrame.functionName || '(anonymous)'} ${where}`;
}

/** Self and inclusive microseconds by function; a function is counted once per stack. */
function summarise(profile: Profile) {
  const selfById = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) {
    selfById.set(id, (selfById.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const onStack = new Set<string>();
  const walk = (id: number): number => {
    const node = byId.get(id)!;
    const key = label(node);
    let sum = node.callFrame.functionName === '(idle)' ? 0 : (selfById.get(id) ?? 0);
    self.set(key, (self.get(key) ?? 0) + sum);
    const outermost = !onStack.has(key);
    if (outermost) onStack.add(key);
    for (const child of node.children ?? []) sum += walk(child);
    if (outermost) {
      onStack.delete(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + sum);
    }
    return sum;
  };
  const busy = walk(profile.nodes[0]!.id);
  return { self, inclusive, busy };
}

const { profile, requests } = await profileServer();
const { self, inclusive, busy } = summarise(profile);
console.log(
  `${kind}: ${requests} requests, ${(busy / requests).toFixed(1)} µs of main-thread time per request`,
);
for (const [title, table] of [
  ['self', self],
  ['inclusive', inclusive],
] as const) {
  console.log(`-- ${title}, µs per request`);
  for (const [key, us] of [...table].sort((a, b) => b[1] - a[1]).slice(0, shown)) {
    console.log(`${(us / requests).toFixed(2).padStart(9)}  ${key}`);
  }
}
