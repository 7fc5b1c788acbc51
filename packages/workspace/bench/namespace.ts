// What WEFT_NAMESPACE=fibery costs: the same query over HTTP against two workspaces holding the
// same rows, one speaking svc (no codec at all) and one speaking fibery (its commands and answer
// renamed at the HTTP boundary). Prints, medians of rounds taken in turn:
//   bench namespace-query: fibery <n> rows/s, svc <m> rows/s, ratio <fibery/svc> (<rows> rows)
// WEFT_BENCH_NAMESPACE_ROWS sets the rows (default 5,000).
import { randomBytes } from 'node:crypto';
import { type RunningWorkspace, startWorkspace } from '../src/index.js';

const ROWS = Number(process.env.WEFT_BENCH_NAMESPACE_ROWS ?? 5000);
const ROUNDS = 7;

const field = (name: string, type: string) => ({ 'svc/name': name, 'svc/type': type, 'svc/meta': {} });

async function post(ws: RunningWorkspace, token: string, body: unknown): Promise<any[]> {
  const res = await fetch(`${ws.url}/api/commands`, {
    method: 'POST',
    headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as any[];
  if (!answer.every((r) => r.success)) throw new Error(JSON.stringify(answer).slice(0, 300));
  return answer;
}

async function prepare(namespace: 'svc' | 'fibery') {
  const token = `bench-${randomBytes(12).toString('hex')}`;
  const ws = await startWorkspace({
    rateLimit: 0,
    adminToken: token,
    webhooks: false,
    log: () => {},
    namespace,
  });
  // filled through ws.execute (svc inside), so both hold exactly the same rows
  await ws.execute([
    {
      command: 'schema.type/create',
      args: {
        'svc/name': 'Bench/Row',
        'svc/meta': {},
        'svc/fields': [
          field('svc/id', 'svc/uuid'),
          field('svc/public-id', 'svc/text'),
          field('svc/creation-date', 'svc/date-time'),
          field('svc/modification-date', 'svc/date-time'),
          field('Bench/name', 'svc/text'),
          field('Bench/n', 'svc/int'),
          field('Bench/data', 'svc/json-value'),
          field('Bench/owner', 'svc/user'),
        ],
      },
    },
  ]);
  const rows = Array.from({ length: ROWS }, (_, n) => ({
    command: 'svc.entity/create',
    args: {
      type: 'Bench/Row',
      entity: {
        'Bench/name': `row svc/${n}`,
        'Bench/n': n,
        'Bench/data': { 'svc/k': n, list: [1, 2, 3] },
        'Bench/owner': { 'svc/id': ws.adminUserId },
      },
    },
  }));
  for (let i = 0; i < rows.length; i += 1000)
    await ws.execute(rows.slice(i, i + 1000), { createResults: false });
  const n = (name: string) => name.replace(/^svc([./])/, `${namespace}$1`);
  const query = [
    {
      command: n('svc.entity/query'),
      args: {
        query: {
          'q/from': 'Bench/Row',
          'q/select': [
            n('svc/id'),
            n('svc/public-id'),
            'Bench/name',
            'Bench/n',
            'Bench/data',
            { 'Bench/owner': [n('svc/id'), 'user/name'] },
          ],
          'q/where': ['>=', ['Bench/n'], '$n'],
          'q/order-by': [[[n('svc/creation-date')], 'q/asc']],
          'q/limit': 'q/no-limit',
        },
        params: { $n: 0 },
      },
    },
  ];
  return { ws, run: async () => (await post(ws, token, query))[0].result.length as number };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const svc = await prepare('svc');
const fibery = await prepare('fibery');
try {
  const rates = { svc: [] as number[], fibery: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, w] of [
      ['svc', svc],
      ['fibery', fibery],
    ] as const) {
      globalThis.gc?.();
      const started = performance.now();
      const count = await w.run();
      if (count !== ROWS) throw new Error(`${name} answered ${count} rows`);
      rates[name].push(count / ((performance.now() - started) / 1000));
    }
  }
  const f = median(rates.fibery);
  const s = median(rates.svc);
  const k = (x: number) => `${(x / 1000).toFixed(1)}k`;
  console.log(
    `bench namespace-query: fibery ${k(f)} rows/s, svc ${k(s)} rows/s, ratio ${(f / s).toFixed(2)} (${ROWS} rows)`,
  );
} finally {
  await svc.ws.close();
  await fibery.ws.close();
}
