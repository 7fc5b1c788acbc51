// Where a data request's fixed cost goes: one-item pages from Express alone up to the whole of
// weft, one step added at a time (`request-stages-server.ts`), in server CPU microseconds per
// request. Rounds alternate between the stages; the median of BENCH_ROUNDS (default 5) rounds
// of BENCH_SECONDS (default 2) each is shown, with the spread.
//   npx tsx bench/request-stages.ts
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { silentLogger } from '../src/index.js';
import { resolvePageKeys } from '../src/paging/page-keys.js';
import { encodePageState } from '../src/paging/page-state.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const child = spawn(
  process.execPath,
  ['--import', 'tsx', fileURLToPath(new URL('./request-stages-server.ts', import.meta.url))],
  { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, BENCH_PAGE: '1' } },
);
try {
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const ports = JSON.parse(line.toString()) as Record<string, number>;
  const cpu = async () => {
    child.send('cpu');
    const [usage] = (await once(child, 'message')) as [NodeJS.CpuUsage];
    return usage.user + usage.system;
  };
  const plainBody = JSON.stringify({
    requestedType: 'issue',
    types: ['issue'],
    account: {},
    filter: {},
    pagination: { offset: 5000 },
  });
  const weftBody = JSON.stringify({
    requestedType: 'issueStream',
    types: ['issueStream'],
    account: {},
    filter: {},
    pagination: encodePageState(
      'issueStream',
      { cursor: 5000, skip: 0 },
      resolvePageKeys(['bench-page-key'], silentLogger),
    ),
    lastSynchronizedAt: null,
  });
  const names = Object.keys(ports);
  const samples = new Map<string, number[]>(names.map((name) => [name, []]));
  // Round -1 warms every stage up and is not counted.
  for (let round = -1; round < ROUNDS; round += 1) {
    for (const name of names) {
      const before = await cpu();
      const result = await autocannon({
        url: `http://127.0.0.1:${ports[name]}/api/v1/synchronizer/data`,
        method: 'POST',
        body: name === 'weft' ? weftBody : plainBody,
        headers: { 'content-type': 'application/json' },
        connections: 16,
        duration: SECONDS,
      });
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`stage "${name}" failed requests`);
      if (round >= 0) samples.get(name)!.push(((await cpu()) - before) / result.requests.total);
    }
  }
  let previous: number | undefined;
  for (const name of names) {
    const sorted = [...samples.get(name)!].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const step =
      previous === undefined
        ? ''
        : ` (${median - previous >= 0 ? '+' : ''}${(median - previous).toFixed(1)})`;
    console.log(
      `bench request-stage ${name}: ${median.toFixed(1)} µs per request${step}, spread ${sorted[0]!.toFixed(0)}-${sorted.at(-1)!.toFixed(0)}`,
    );
    previous = median;
  }
} finally {
  child.kill();
}
