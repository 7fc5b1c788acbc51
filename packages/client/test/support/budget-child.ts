// One process of the cross-process budget test: sends CALLS requests with one token, with the
// budget in Postgres (STORE=postgres) or in its own memory (STORE=memory), and prints what it saw.
import { createWorkspaceClient } from '../../src/index.js';
import { PostgresBudgetStore } from '../../src/budget/postgres-budget-store.js';
import { MemoryBudgetStore } from '../../src/budget/memory-budget-store.js';

const env = process.env;
const store =
  env.STORE === 'postgres'
    ? new PostgresBudgetStore({ connectionString: env.BUDGET_DATABASE_URL!, table: env.BUDGET_TABLE! })
    : new MemoryBudgetStore();
const client = createWorkspaceClient({
  url: env.WORKSPACE_URL!,
  token: env.WORKSPACE_TOKEN!,
  budgetStore: store,
  maxBatch: 1,
});
const calls = Number(env.CALLS);
// Both processes start sending together: each says it is ready, then waits for the word.
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
process.stdin.pause();
const results = await Promise.allSettled(Array.from({ length: calls }, () => client.schema.query()));
// A failed call says why in the result, so the test's assertion names the reason, not a bare count.
const failures = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
process.stdout.write(
  `${JSON.stringify({ ok: results.length - failures.length, failures, ...client.stats })}\n`,
);
if (store instanceof PostgresBudgetStore) await store.close();
