// Core at scale: the time to serve the first and the last page of a type with N rows
// (default 1,000,000; BENCH_SCALE_ROWS for a quick run), pages of 1,000, for a handler that
// yields resume() after each upstream page and for the same handler without it. Without resume
// points every page replays the stream from the start and drops what was sent, so the last
// page costs N/1,000 times the first; walking every page would be quadratic, so the state of
// the last page is built directly. Measured is core's page work: running the handler, cutting
// the page, and serialising the answer (HTTP adds the same constant to every page), in CPU
// time, which other work on a shared machine does not inflate.
import { resume } from '../src/index.js';
import { cutPage } from '../src/paging/cut-page.js';
import type { PageState } from '../src/paging/page-state.js';
import { fileURLToPath } from 'node:url';

const PAGE = 1_000;

function upstreamPage(start: number, end: number) {
  const items = [];
  for (let n = start; n < Math.min(start + PAGE, end); n += 1) {
    items.push({ id: `row-${n}`, name: `Row number ${n}`, points: n % 13, state: n % 3 ? 'Open' : 'Done' });
  }
  return items;
}

/** The idiomatic handler over a paged upstream: one batch per upstream page, then resume(). */
async function* withResume(rows: number, cursor: unknown) {
  for (let start = typeof cursor === 'number' ? cursor : 0; start < rows; start += PAGE) {
    yield upstreamPage(start, rows);
    yield resume(start + PAGE);
  }
}

/** The same without resume points: each request starts the upstream over. */
async function* withoutResume(rows: number) {
  for (let start = 0; start < rows; start += PAGE) yield upstreamPage(start, rows);
}

async function pageMs(stream: () => AsyncIterable<unknown>, state: PageState, runs: number): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    globalThis.gc?.();
    const started = process.cpuUsage();
    const page = await cutPage(stream(), { pageSize: PAGE, state, mode: 'full', type: 'row' });
    if (page.items.length === 0) throw new Error('bench page-scale: a measured page came out empty');
    JSON.stringify({ items: page.items, pagination: { hasNext: page.next !== null } });
    const used = process.cpuUsage(started);
    times.push((used.user + used.system) / 1e3);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

function label(rows: number): string {
  return rows >= 1e6 && rows % 1e6 === 0 ? `${rows / 1e6}M` : rows >= 1e3 ? `${rows / 1e3}k` : `${rows}`;
}

export async function benchPageScale(
  rows = Number(process.env.BENCH_SCALE_ROWS ?? 1_000_000),
): Promise<void> {
  const lastStart = Math.max(0, Math.ceil(rows / PAGE) - 1) * PAGE;
  const start: PageState = { cursor: undefined, skip: 0 };
  // Warm-up, so the first measurement does not pay for compilation.
  await pageMs(() => withResume(rows, 0), start, 20);
  const cases = [
    {
      name: 'resume',
      stream: (state: PageState) => () => withResume(rows, state.cursor),
      last: { cursor: lastStart, skip: 0 },
    },
    {
      name: 'no-resume',
      stream: (_state: PageState) => () => withoutResume(rows),
      last: { cursor: undefined, skip: lastStart },
    },
  ];
  for (const c of cases) {
    const first = await pageMs(c.stream(start), start, 15);
    const last = await pageMs(c.stream(c.last), c.last, c.name === 'resume' ? 15 : 5);
    console.log(
      `bench core-page-${label(rows)}-${c.name}: first ${first.toFixed(2)} ms, last ${last.toFixed(2)} ms, ratio ${(last / first).toFixed(2)}`,
    );
  }
}

// Runnable on its own: `node --import tsx --expose-gc packages/core/bench/page-scale.ts`.
if (process.argv[1] === fileURLToPath(import.meta.url)) await benchPageScale();
