import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

const T = 'b/item';

describeEachDatabase('batches, transactions and robustness', (target) => {
  const h = useWorkspace(target);
  const count = async (type = T) =>
    (
      await h.run('svc.entity/query', {
        query: { 'q/from': type, 'q/select': ['svc/id'], 'q/limit': 'q/no-limit' },
      })
    ).length;

  beforeAll(async () => {
    await h.run(
      'schema.type/create',
      typeArgs(T, [
        ['b/n', 'svc/int'],
        ['b/d', 'svc/decimal'],
        ['b/when', 'svc/date-time'],
        ['b/ref', T],
      ]),
    );
  });

  it('a top-level array runs each command in its own transaction, in order; a failure does not stop the rest', async () => {
    const before = await count();
    const id = randomUUID();
    const results = await h.commands([
      {
        command: 'svc.entity/create',
        args: { type: T, entity: { 'svc/id': id, 'b/n': 1 } },
        correlationId: randomUUID(),
      },
      { command: 'svc.entity/create', args: { type: T, entity: { 'b/n': 'x' } } },
      { command: 'svc.entity/update', args: { type: T, entity: { 'svc/id': id, 'b/n': 2 } } },
      { nope: true },
    ]);
    expect(results.map((r) => r.success)).toEqual([true, false, true, false]);
    expect(results[1].error).toEqual({
      name: 'weft.error/invalid-value',
      message: expect.any(String),
      code: 'invalid-value',
      status: 400,
    });
    expect(results[2].result['b/n']).toBe(2);
    expect(await count()).toBe(before + 1);
  });

  it('svc.command/batch returns the inner results and is all or nothing', async () => {
    const before = await count();
    const ok = await h.run('svc.command/batch', {
      commands: [
        { command: 'svc.entity/create', args: { type: T, entity: { 'b/n': 10 } } },
        { command: 'svc.entity/create', args: { type: T, entity: { 'b/n': 11 } } },
        {
          command: 'svc.entity/query',
          args: {
            query: { 'q/from': T, 'q/select': ['b/n'], 'q/where': ['>=', ['b/n'], '$n'] },
            params: { $n: 10 },
          },
        },
      ],
    });
    expect(ok[0]['b/n']).toBe(10);
    expect(ok[1]['b/n']).toBe(11);
    expect(ok[2]).toEqual([{ 'b/n': 10 }, { 'b/n': 11 }]);
    const failed = await h.attempt('svc.command/batch', {
      commands: [
        { command: 'svc.entity/create', args: { type: T, entity: { 'b/n': 12 } } },
        { command: 'svc.entity/create', args: { type: T, entity: { 'b/n': 13 } } },
        { command: 'svc.entity/create', args: { type: T, entity: { 'b/ref': { 'svc/id': randomUUID() } } } },
      ],
    });
    expect(failed.success).toBe(false);
    expect(failed.error.message).toMatch(/^commands\[2\] \(svc\.entity\/create\)/);
    expect(await count()).toBe(before + 2);
  });

  it('entities created in one batch keep their order in the default ordering', async () => {
    const type = 'b/ordered';
    await h.run('schema.type/create', typeArgs(type, [['b/i', 'svc/int']]));
    for (let round = 0; round < 2; round++) {
      await h.run('svc.command/batch', {
        commands: Array.from({ length: 40 }, (_, i) => ({
          command: 'svc.entity/create',
          args: { type, entity: { 'b/i': round * 40 + i } },
        })),
      });
    }
    const rows = await h.run('svc.entity/query', { query: { 'q/from': type, 'q/select': ['b/i'] } });
    expect(rows.map((r: any) => r['b/i'])).toEqual(Array.from({ length: 80 }, (_, i) => i));
  });

  it('svc.schema/batch runs schema commands in order, answers "ok", refuses others, and rolls DDL back on failure', async () => {
    const done = await h.run('svc.schema/batch', {
      commands: [
        { command: 'schema.type/create', args: typeArgs('sb/a') },
        {
          command: 'schema.field/create',
          args: { 'svc/holder-type': 'sb/a', 'svc/name': 'sb/n', 'svc/type': 'svc/int' },
        },
        { command: 'svc.app/install-mixins', args: { types: { 'sb/a': ['svc/rank-mixin'] } } },
      ],
    });
    // As the service's docs show it: the whole batch answers "ok", not a list of its commands' "ok"s.
    expect(done).toBe('ok');
    const refused = await h.attempt('svc.schema/batch', {
      commands: [{ command: 'svc.entity/create', args: { type: 'sb/a', entity: {} } }],
    });
    expect(refused).toMatchObject({ success: false, error: { code: 'invalid-args' } });
    const rolled = await h.attempt('svc.schema/batch', {
      commands: [
        { command: 'schema.type/create', args: typeArgs('sb/b') },
        {
          command: 'schema.field/create',
          args: { 'svc/holder-type': 'sb/b', 'svc/name': 'sb/x', 'svc/type': 'svc/nope' },
        },
      ],
    });
    expect(rolled.success).toBe(false);
    const schema = await h.run('svc.schema/query');
    const names = schema['svc/types'].map((t: any) => t['svc/name']);
    expect(names).toContain('sb/a');
    expect(names).not.toContain('sb/b');
  });

  it('svc.command/batch may hold svc.schema/batch, then use the new type; nested results nest', async () => {
    const out = await h.run('svc.command/batch', {
      commands: [
        {
          command: 'svc.schema/batch',
          args: { commands: [{ command: 'schema.type/create', args: typeArgs('sb/c') }] },
        },
        { command: 'svc.entity/create', args: { type: 'sb/c', entity: { 'sb/name': 'one' } } },
      ],
    });
    expect(out[0]).toBe('ok');
    expect(out[1]['sb/name']).toBe('one');
  });

  it('bad bodies are 400 with {message}, never 500', async () => {
    // (A single command object is a command: service-clients.test.ts.)
    for (const body of ['{not json', '"x"']) {
      const res = await h.request('POST', '/api/commands', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ message: expect.any(String) });
    }
    const odd = await h.commands([null, 3, { command: 5 }, { command: 'svc.entity/create', args: [] }]);
    expect(odd.every((r) => r.success === false && r.error.code === 'invalid-args')).toBe(true);
  });

  it('deeply nested filters and sub-selects are refused as invalid queries', async () => {
    // Deeper than the query's 32 levels but within the body's 256 (a deeper body is a 400 before
    // it is parsed: hardening-http.test.ts).
    let where: unknown = ['=', ['b/n'], '$a'];
    for (let i = 0; i < 40; i++) where = ['q/and', where];
    let select: unknown = ['b/n'];
    for (let i = 0; i < 40; i++) select = [{ 'b/ref': select }];
    for (const query of [
      { 'q/from': T, 'q/select': ['b/n'], 'q/where': where },
      { 'q/from': T, 'q/select': select },
    ]) {
      const r = await h.attempt('svc.entity/query', { query, params: { $a: 1 } });
      expect(r).toMatchObject({ success: false, error: { code: 'invalid-query' } });
    }
  });

  // ---- fuzz ----

  const value = fc.oneof(
    fc.integer({ min: -1000, max: 1000 }),
    fc.double({ noNaN: false }),
    fc.string({ maxLength: 8 }),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('2026-01-01T00:00:00Z', '2026-13-01', '1.5', '-0', '1e400', '\u0000'),
    fc.record({ 'svc/id': fc.constantFrom(randomUUID(), 'x') }),
  );
  const field = fc.constantFrom('b/n', 'b/d', 'b/when', 'b/ref', 'b/name', 'b/nope', 'svc/id');
  const entity = fc.dictionary(field, value, { maxKeys: 3 });
  const command = fc.oneof(
    entity.map((e) => ({ command: 'svc.entity/create', args: { type: T, entity: e } })),
    entity.map((e) => ({ command: 'svc.entity/update', args: { type: T, entity: e } })),
    fc.constant({ command: 'svc.entity/delete', args: { type: T, entity: { 'svc/id': randomUUID() } } }),
    fc.constant({ command: 'svc.entity/create', args: { type: 'b/none', entity: {} } }),
  );

  it('fuzz: random svc.command/batch never 5xx and never half-applies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 6 }), async (commands) => {
        const before = await count();
        const res = await h.request('POST', '/api/commands', [
          { command: 'svc.command/batch', args: { commands } },
        ]);
        expect(res.status).toBe(200);
        const [r] = res.body;
        if (!r.success) {
          expect(r.error.code).not.toBe('internal');
          expect(await count()).toBe(before);
        } else {
          const created = commands.filter((c) => c.command === 'svc.entity/create').length;
          expect(await count()).toBe(before + created);
        }
      }),
      { numRuns: 40 },
    );
  });

  const path = fc.constantFrom(
    ['b/n'],
    ['b/d'],
    ['b/when'],
    ['b/ref'],
    ['b/ref', 'b/n'],
    ['b/name'],
    ['svc/id'],
    ['nope'],
    [],
    ['q/start', ['b/when']],
  );
  const leaf = fc.tuple(
    fc.constantFrom('=', '!=', '<', '>', '<=', '>=', 'q/in', 'q/not-in', 'q/contains', 'bogus'),
    path,
    fc.constantFrom('$a', '$b', 7, 'inline'),
  );
  const where = fc.letrec((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.tuple(fc.constantFrom('q/and', 'q/or'), tie('expr'), tie('expr')),
    ),
  })).expr;
  const query = fc.record(
    {
      'q/from': fc.constantFrom(T, 'b/none'),
      'q/select': fc.constantFrom(['b/n'], ['b/d', { 'b/ref': ['b/n'] }], [{ c: ['q/count', ['b/n']] }], 'x'),
      'q/where': where,
      'q/order-by': fc.constantFrom([[['b/n'], 'q/desc']], [[['b/ref', 'b/d'], 'q/asc']], [['x']], 'x'),
      'q/limit': fc.constantFrom(1, 'q/no-limit', -1, 'x'),
    },
    { requiredKeys: ['q/from', 'q/select'] },
  );

  it('fuzz: random queries never 5xx and never fail as internal errors', async () => {
    await fc.assert(
      fc.asyncProperty(query, value, fc.array(value, { maxLength: 3 }), async (q, a, b) => {
        const res = await h.request('POST', '/api/commands', [
          { command: 'svc.entity/query', args: { query: q, params: { $a: a, $b: b } } },
        ]);
        expect(res.status).toBe(200);
        if (!res.body[0].success) expect(res.body[0].error.code).not.toBe('internal');
      }),
      { numRuns: 60 },
    );
  });
});
