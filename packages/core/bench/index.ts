// Core benchmark: GET / requests/s and data-page items/s, weft against a hand-written Express
// handler returning the same JSON, measured side by side in one run. Both servers run in one
// child process; the load generator runs here. On a two-core machine the load generator cannot
// saturate the server, so wall-clock requests/s would measure the load generator: the rates are
// per second of the server's own CPU time (what one saturated core serves), read from the child
// with process.cpuUsage(). Rounds alternate, each side first in every other round, so drift on a
// shared machine hits both sides alike; a ratio is the median of the rounds' own ratios.
// The data page is measured three ways: batch yields, one yield per item, and pages of one item
// (the per-request cost apart from items); then the yield protocol alone, in process.
// The per-item page is also set against a hand-written Express handler draining the same
// one-yield-per-item generator with `for await`: what weft adds on top of the yield protocol;
// and that hand-written drain against the hand-written batch: what one yield per item costs an
// app without weft. The ceiling line puts the two together: the hand-written batch's cost per
// item plus the yield protocol's is the best a one-yield-per-item page could do.
// BENCH_SECONDS (per measurement) and BENCH_ROUNDS (median of) trade time for steadier figures;
// BENCH_ONLY (comma-separated names) runs only those comparisons.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { benchPageScale } from './page-scale.js';
import { benchYieldProtocol } from './yield-protocol.js';
import { silentLogger } from '../src/index.js';
import { resolvePageKeys } from '../src/paging/page-keys.js';
import { encodePageState } from '../src/paging/page-state.js';
import { runLoad } from './load.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PAGE = 1_000;
const ONLY = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const wanted = (name: string) => !ONLY || ONLY.includes(name);

/** A child serving both apps, with pages of `page` items; rates are per second of its CPU. */
async function startServers(page: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./servers.ts', import.meta.url))],
    { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, BENCH_PAGE: String(page) } },
  );
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const ports = JSON.parse(line.toString()) as { weft: number; hand: number };
  return { child, ports };
}

let servers = await startServers(PAGE);
/** The hand-written batch page's items/s, for the per-item yield's ceiling below. */
let handBatchItemsPerSecond: number | undefined;
let ports = servers.ports;

async function serverCpuSeconds(): Promise<number> {
  servers.child.send('cpu');
  const [usage] = (await once(servers.child, 'message')) as [NodeJS.CpuUsage];
  return (usage.user + usage.system) / 1e6;
}

async function rate(
  port: number,
  request: { method: 'GET' | 'POST'; path: string; body?: string },
): Promise<number> {
  const cpuBefore = await serverCpuSeconds();
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${request.path}`,
    method: request.method,
    body: request.body,
    headers: request.body ? { 'content-type': 'application/json' } : {},
    connections: 16,
    duration: DURATION_S,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`bench requests failed on port ${port}`);
  const cpu = (await serverCpuSeconds()) - cpuBefore;
  return result.requests.total / cpu;
}

/** Medians of both sides (per second, times `scale`), printed as one line; undefined when not wanted. */
async function compare(
  name: string,
  unit: string,
  scale: number,
  weftReq: Parameters<typeof rate>[1],
  handReq: Parameters<typeof rate>[1],
  baseline = 'hand-written express',
  // The measured side: weft unless said otherwise (the hand-written app's other handler).
  subject: { name: string; port: () => number } = { name: 'weft', port: () => ports.weft },
  // The ratio issue 27 asks for, printed with the line.
  target?: number,
): Promise<{ subject: number; baseline: number } | undefined> {
  if (!wanted(name)) return undefined;
  await rate(subject.port(), { ...weftReq }); // warm-up both
  await rate(ports.hand, { ...handReq });
  const weft: number[] = [];
  const hand: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // Each side goes first in every other round: a drift in the machine's load between the
    // two measurements of a round favours neither side.
    if (round % 2 === 0) weft.push(await rate(subject.port(), weftReq));
    hand.push(await rate(ports.hand, handReq));
    if (round % 2 === 1) weft.push(await rate(subject.port(), weftReq));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const w = median(weft) * scale;
  const h = median(hand) * scale;
  // The ratio of each round's two measurements, taken back to back, then their median: on a
  // shared machine whose load moves between rounds, steadier than the ratio of the two medians.
  const ratio = median(weft.map((value, round) => value / hand[round]!));
  console.log(
    `bench ${name}: ${subject.name} ${format(w)} ${unit}, ${baseline} ${format(h)} ${unit}, ratio ${ratio.toFixed(2)}${target === undefined ? '' : `, target ${target.toFixed(2)}`}`,
  );
  return { subject: w, baseline: h };
}

/** A data request with this body. */
function dataRequest(body: string): Parameters<typeof rate>[1] {
  return { method: 'POST', path: '/api/v1/synchronizer/data', body };
}

function format(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(0);
}

try {
  await compare('descriptor', 'requests/s', 1, { method: 'GET', path: '/' }, { method: 'GET', path: '/' });
  const weftBody = JSON.stringify({
    requestedType: 'issue',
    types: ['issue'],
    account: {},
    filter: {},
    // A signed cursor, as the weft server (same page key) issues it.
    pagination: encodePageState(
      'issue',
      { cursor: 5000, skip: 0 },
      resolvePageKeys(['bench-page-key'], silentLogger),
    ),
    lastSynchronizedAt: null,
  });
  const handBody = JSON.stringify({
    requestedType: 'issue',
    types: ['issue'],
    account: {},
    filter: {},
    pagination: { offset: 5000 },
  });
  await compare(
    'data-page',
    'items/s',
    PAGE,
    dataRequest(weftBody),
    dataRequest(handBody),
    undefined,
    undefined,
    1,
  );
  const streamBody = JSON.stringify({
    ...JSON.parse(weftBody),
    requestedType: 'issueStream',
    types: ['issueStream'],
    pagination: encodePageState(
      'issueStream',
      { cursor: 5000, skip: 0 },
      resolvePageKeys(['bench-page-key'], silentLogger),
    ),
  });
  const perItem = await compare(
    'data-page-per-item-yield',
    'items/s',
    PAGE,
    dataRequest(streamBody),
    dataRequest(handBody),
  );
  const handStreamBody = JSON.stringify({
    ...JSON.parse(handBody),
    requestedType: 'issueStream',
    types: ['issueStream'],
  });
  // Both sides drain the same one-yield-per-item generator: the ratio is weft's own share.
  await compare(
    'data-page-per-item-yield-same-generator',
    'items/s',
    PAGE,
    dataRequest(streamBody),
    dataRequest(handStreamBody),
    'hand-written express draining the same generator',
  );
  // The same question without weft: a hand-written app whose handler yields once per item,
  // against the hand-written batch. What the per-item page's target asks of weft, asked of
  // the baseline's own author.
  await compare(
    'data-page-per-item-yield-hand',
    'items/s',
    PAGE,
    dataRequest(handStreamBody),
    dataRequest(handBody),
    'hand-written express batch',
    { name: 'hand-written express draining one yield per item', port: () => ports.hand },
  );
  if (perItem) handBatchItemsPerSecond = perItem.baseline;
  // Pages of one item: what a data request costs apart from its items (body validation, page
  // state signing and checking, the time limit, redaction, the request log), per request.
  if (wanted('data-page-one-item')) {
    servers.child.kill();
    servers = await startServers(1);
    ports = servers.ports;
  }
  await compare(
    'data-page-one-item',
    'requests/s',
    1,
    dataRequest(weftBody),
    dataRequest(handBody),
    undefined,
    undefined,
    1,
  );
} finally {
  servers.child.kill();
}

// The async-generator protocol alone, in process: a page of one yield per item against the
// same items yielded as one batch, without HTTP or serialisation.
if (wanted('cut-page-per-item-yield')) {
  const perYieldNs = await benchYieldProtocol();
  if (handBatchItemsPerSecond !== undefined) {
    // If weft served a per-item page at exactly the hand-written batch's cost plus the yield
    // protocol, and nothing else, this is the ratio it would reach.
    const handNs = 1e9 / handBatchItemsPerSecond;
    console.log(
      `bench data-page-per-item-yield-ceiling: hand-written express batch ${handNs.toFixed(0)} ns per item, yield protocol ${perYieldNs.toFixed(0)} ns per item: with nothing else added, at most ratio ${(handNs / (handNs + perYieldNs)).toFixed(2)}`,
    );
  }
}

// Core at scale: first and last page of a 1,000,000-row type, with and without resume().
if (wanted('core-page-scale')) await benchPageScale();
if (wanted('load') && !process.env.BENCH_SKIP_LOAD && !(await runLoad())) {
  console.error('bench load: some requests failed');
  process.exit(1);
}
