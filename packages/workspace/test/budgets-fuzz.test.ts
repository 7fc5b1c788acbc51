import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

// Random requests of a non-admin user to the data API: whatever they hold (unknown commands,
// queries of random shape, paths and values deep or long), the answer is never a 5xx, no request
// gets more than its budgets allow, and no answer carries a value of the secured field.

const T = 'fz/thing';
const BUDGETS = { maxCommands: 200, maxResultRows: 50, requestTimeoutMs: 3_000, statementTimeoutMs: 2_000 };
const FIELDS = [
  'svc/id',
  'fz/name',
  'fz/n',
  'fz/next',
  'fz/secret',
  'fz/tags',
  'nope/field',
  'svc/public-id',
];
/** in every row's secured field; a non-admin's answer must never hold it */
const SECRET = 'SECRET-MARKER';
const OPS = [
  '=',
  '!=',
  '<',
  '>=',
  'q/in',
  'q/not-in',
  'q/contains',
  'q/starts-with',
  'q/and',
  'q/or',
  'q/not',
  'q/x',
];

const field = fc.constantFrom(...FIELDS);
const path = fc.oneof(
  fc.array(field, { minLength: 0, maxLength: 4 }),
  fc.integer({ min: 10, max: 5_000 }).map((n) => Array(n).fill('fz/next')),
);
const param = fc.constantFrom('$a', '$b', '$missing', 'inline');
const where: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(fc.constantFrom(...OPS), path, param).map((t) => [...t]),
    fc
      .tuple(fc.constantFrom('q/and', 'q/or'), fc.array(tie('expr'), { maxLength: 4 }))
      .map(([op, xs]) => [op, ...xs]),
    fc
      .constantFrom('q/or', 'q/and')
      .map((op) => [op, ...Array.from({ length: 400 }, () => ['q/contains', ['fz/name'], '$a'])]),
    fc.anything(),
  ),
})).expr;
const select = fc.oneof(
  fc.array(fc.oneof(field, fc.record({ 'fz/next': fc.array(field, { maxLength: 3 }) })), { maxLength: 6 }),
  fc.integer({ min: 1, max: 3_000 }).map((n) => Array(n).fill('svc/id')),
  fc.anything(),
);
const deep = fc.integer({ min: 50, max: 3_000 }).map((n) => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = [v];
  return v;
});
const value = fc.oneof(fc.jsonValue(), deep, fc.string({ maxLength: 300 }));
const query = fc.record(
  {
    'q/from': fc.constantFrom(T, 'nope/type', 'svc/user'),
    'q/select': select,
    'q/where': where,
    'q/limit': fc.oneof(fc.integer({ min: -1, max: 100 }), fc.constant('q/no-limit'), fc.constant(1e9)),
    'q/order-by': fc.array(fc.tuple(path, fc.constantFrom('q/asc', 'q/desc', 'x'))),
  },
  { requiredKeys: ['q/from'] },
);
// Well-formed reads, so that a leak would be found: the secured field asked for directly,
// through the relation, in a filter or an order, beside open fields.
const readQuery = fc.record({
  'q/from': fc.constant(T),
  'q/select': fc.subarray(['svc/id', 'fz/name', 'fz/secret', { 'fz/next': ['fz/secret', 'fz/name'] }], {
    minLength: 1,
  }),
  'q/where': fc.constantFrom(undefined, ['q/starts-with', ['fz/secret'], '$a'], ['!=', ['fz/n'], '$b']),
  'q/order-by': fc.constantFrom(undefined, [[['fz/secret'], 'q/asc']]),
  'q/limit': fc.integer({ min: 1, max: 20 }),
});
const read = readQuery.map((query) => ({
  command: 'svc.entity/query',
  args: { query, params: { $a: SECRET, $b: -1 } },
}));
const command: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  cmd: fc.oneof(
    { depthSize: 'small' },
    fc.record({
      command: fc.constant('svc.entity/query'),
      args: fc.record({ query, params: fc.dictionary(param, value) }),
    }),
    fc.record({
      command: fc.constant('svc.entity/create'),
      args: fc.record({ type: fc.constantFrom(T, 'nope/type'), entity: fc.dictionary(field, value) }),
    }),
    fc.record({
      command: fc.constantFrom('svc.entity/update', 'svc.entity/delete', 'schema.type/create', 'svc.nope'),
      args: fc.dictionary(fc.string({ maxLength: 10 }), value),
    }),
    fc.record({
      command: fc.constant('svc.command/batch'),
      args: fc.record({ commands: fc.array(tie('cmd'), { maxLength: 4 }) }),
    }),
    fc.anything(),
  ),
})).cmd;
const request = fc.oneof(
  fc.array(command, { maxLength: 5 }),
  fc.integer({ min: 150, max: 400 }).map((n) => Array(n).fill({ command: 'svc.schema/query' })),
  fc.anything(),
);

describeEachDatabase('data API fuzz: random non-admin requests stay within budgets', (target) => {
  const h = useWorkspace(target, { budgets: BUDGETS });
  let token: string;

  beforeAll(async () => {
    await h.ws.execute([
      {
        command: 'schema.type/create',
        args: typeArgs(
          T,
          [
            ['fz/n', 'svc/int'],
            ['fz/next', T],
            ['fz/secret', 'svc/text', { 'svc/secured?': true }],
          ],
          { 'svc/secured?': true },
        ),
      },
    ]);
    await h.ws.execute(
      Array.from({ length: 60 }, (_, i) => ({
        command: 'svc.entity/create',
        args: { type: T, entity: { 'fz/name': `thing ${i}`, 'fz/n': i, 'fz/secret': `${SECRET}-${i}` } },
      })),
    );
    token = (await h.ws.createUser({ name: 'Fuzzer' })).token;
  });

  it('no 5xx, no secured value, no result over maxResultRows, no request past its time budget', async () => {
    await fc.assert(
      // Each random request is followed by a well-formed read of the secured type as the same user.
      fc.asyncProperty(request, read, async (body, after) => {
        const readBack = await h.request('POST', '/api/commands', [after], token);
        expect(readBack.status).toBe(200);
        expect(JSON.stringify(readBack.body)).not.toContain(SECRET);
        const started = performance.now();
        const res = await h.request('POST', '/api/commands', body, token);
        const elapsed = performance.now() - started;
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeLessThan(500);
        expect(res.body).toBeTypeOf('object');
        expect(JSON.stringify(res.body)).not.toContain(SECRET);
        if (res.status !== 200) {
          expect(res.body).toMatchObject({ message: expect.any(String), code: expect.any(String) });
          return;
        }
        // A single command object (not in an array) is answered with its single result; no body
        // at all with [].
        const elements = Array.isArray(res.body) ? res.body : [res.body];
        for (const r of elements as Array<{
          success: boolean;
          result?: unknown;
          error?: { status: number };
        }>) {
          if (!r.success) expect(r.error!.status).toBeLessThan(500);
          else if (Array.isArray(r.result))
            expect(r.result.length).toBeLessThanOrEqual(BUDGETS.maxResultRows);
        }
        // The request budget plus a generous margin for one statement under a loaded machine.
        expect(elapsed).toBeLessThan(BUDGETS.requestTimeoutMs + 10_000);
      }),
      { numRuns: 60, interruptAfterTimeLimit: 90_000 },
    );
  }, 180_000);
});
