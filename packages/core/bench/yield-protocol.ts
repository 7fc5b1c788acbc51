// The async-generator protocol alone: core cutting a page of 1,000 items from a handler that
// yields each item, against the same items yielded as one batch. No HTTP and no serialisation,
// so the difference is what one `yield` per item costs (the handler's implicit await of the
// yielded value, the promise `next()` returns, and core's reaction to it), in CPU time.
import { resume } from '../src/index.js';
import { cutPage } from '../src/paging/cut-page.js';

const PAGE = 1_000;
const PAGES_PER_ROUND = 500;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3) + 2;

function makeItem(n: number) {
  return { id: `issue-${n}`, name: `Issue number ${n}`, points: n % 13, project: `p${n % 7}` };
}

async function* perItem(start: number) {
  for (let n = start; n < start + PAGE; n += 1) yield makeItem(n);
  yield resume(start + PAGE);
}

async function* batch(start: number) {
  const items = [];
  for (let n = start; n < start + PAGE; n += 1) items.push(makeItem(n));
  yield items;
  yield resume(start + PAGE);
}

/** Items per CPU second over one round of pages. */
async function round(handler: (start: number) => AsyncIterable<unknown>): Promise<number> {
  const before = process.cpuUsage();
  for (let page = 0; page < PAGES_PER_ROUND; page += 1) {
    const state = { cursor: page * PAGE, skip: 0 };
    const cut = await cutPage(handler(page * PAGE), { pageSize: PAGE, state, mode: 'full', type: 'bench' });
    if (cut.items.length !== PAGE) throw new Error('bench page came out short');
  }
  const used = process.cpuUsage(before);
  return (PAGES_PER_ROUND * PAGE) / ((used.user + used.system) / 1e6);
}

/** Prints the comparison; resolves with the cost of one yield in ns. */
export async function benchYieldProtocol(): Promise<number> {
  const yields: number[] = [];
  const batches: number[] = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    yields.push(await round(perItem));
    batches.push(await round(batch));
  }
  // The first round of each warms the optimiser up.
  const median = (xs: number[]) => [...xs.slice(1)].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  const y = median(yields);
  const b = median(batches);
  const perYieldNs = 1e9 / y - 1e9 / b;
  console.log(
    `bench cut-page-per-item-yield: weft ${format(y)} items/s, one batch yield ${format(b)} items/s, ratio ${(y / b).toFixed(2)} (${perYieldNs.toFixed(0)} ns per yield)`,
  );
  return perYieldNs;
}

function format(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : `${(n / 1e3).toFixed(1)}k`;
}
