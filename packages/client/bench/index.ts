// Benchmarks of @weft/client against a local workspace that enforces 3 requests/s per token.
// Prints:
//   bench client-rate-budget: weft <s>, ideal <s>, ratio <weft/ideal> (<n> calls, <k> 429s)
//   bench client-batching: weft <n> requests, one per call <m> requests, ratio <n/m>
// The ideal is what the service's own limit allows: a full bucket of 3, then 3 per second.
// WEFT_BENCH_CLIENT_CALLS sets the number of concurrent calls (default 1,000: about 5.5 minutes).
import { randomBytes } from 'node:crypto';
import { startWorkspace } from '@weft/workspace';
import { createWorkspaceClient, MemoryBudgetStore } from '../src/index.js';

const CALLS = Number(process.env.WEFT_BENCH_CLIENT_CALLS ?? 1000);
const RATE = 3;

const token = `bench-${randomBytes(12).toString('hex')}`;
const ws = await startWorkspace({ rateLimit: RATE, adminToken: token, webhooks: false, log: () => {} });
try {
  // Rate budget: CALLS concurrent calls that cannot be coalesced (one request each).
  let refused = 0;
  const client = createWorkspaceClient({
    url: ws.url,
    token,
    maxBatch: 1,
    budgetStore: new MemoryBudgetStore(),
    onEvent: (e) => {
      if (e.type === 'request' && e.status === 429) refused++;
    },
  });
  const started = performance.now();
  await Promise.all(Array.from({ length: CALLS }, () => client.tokens.list()));
  const seconds = (performance.now() - started) / 1000;
  const ideal = Math.max(0, CALLS - RATE) / RATE;
  console.log(
    `bench client-rate-budget: weft ${seconds.toFixed(1)} s, ideal ${ideal.toFixed(1)} s, ratio ${(seconds / ideal).toFixed(3)} (${CALLS} calls, ${refused} 429s)`,
  );

  // Batching: 1,000 creates issued in one tick.
  await new Promise((r) => setTimeout(r, 1100));
  let requests = 0;
  const bulk = createWorkspaceClient({
    url: ws.url,
    token,
    budgetStore: new MemoryBudgetStore(),
    onEvent: (e) => {
      if (e.type === 'request') requests++;
    },
  });
  await bulk.schema.createType({ name: 'Bench/Row', fields: [{ name: 'Bench/n', type: 'svc/int' }] });
  requests = 0;
  await Promise.all(
    Array.from({ length: 1000 }, (_, n) => bulk.entities.create('Bench/Row', { 'Bench/n': n })),
  );
  console.log(
    `bench client-batching: weft ${requests} requests, one per call 1000 requests, ratio ${(requests / 1000).toFixed(3)}`,
  );
} finally {
  await ws.close();
}
