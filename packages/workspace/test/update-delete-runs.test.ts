import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';
import { hookReceiver } from './support/hook-receiver.js';

// Consecutive updates (or deletes) of one type inside svc.command/batch are made together (a sync
// writing the rows it already holds sends a page of updates; a full sync removes what its app no
// longer sends): they must answer, store, report effects and fail exactly as the same commands
// made one at a time. One at a time is forced here by a query between every two commands, which
// ends a run.

const T = 'bup/item';
const G = 'bup/group';
/** The relation of an item's owner (a group) and a group's items: the items' side holds it. */
const OWNS = randomUUID();
const AUTO = ['svc/id', 'svc/public-id', 'svc/creation-date', 'svc/modification-date'];
const ALL = [
  ...AUTO,
  'bup/name',
  'bup/n',
  'bup/d',
  'bup/flag',
  'bup/day',
  'bup/at',
  'bup/u',
  'bup/group',
  'bup/owner',
];

type Entity = Record<string, unknown>;

const update = (entity: Entity) => ({ command: 'svc.entity/update', args: { type: T, entity } });
const remove = (entity: Entity) => ({ command: 'svc.entity/delete', args: { type: T, entity } });
const nothing = {
  command: 'svc.entity/query',
  args: {
    query: { 'q/from': G, 'q/select': ['svc/id'], 'q/where': ['=', ['svc/id'], '$x'], 'q/limit': 1 },
    params: { $x: randomUUID() },
  },
};
/** The updates (or other commands) as one run, or one at a time (a query after each). */
const batch = (entities: Entity[], together: boolean, command = update) => ({
  commands: together ? entities.map(command) : entities.flatMap((e) => [command(e), nothing]),
});
/** A result without what differs between two otherwise equal entities. */
const own = (r: Entity) => Object.fromEntries(Object.entries(r).filter(([k]) => !AUTO.includes(k)));

describeEachDatabase('runs of updates in a batch', (target) => {
  const h = useWorkspace(target);
  const rx = hookReceiver();
  let groups: string[] = [];

  const create = async (n: number): Promise<string[]> => {
    const out = await h.run('svc.command/batch', {
      commands: Array.from({ length: n }, (_, i) => ({
        command: 'svc.entity/create',
        args: {
          type: T,
          entity: { 'bup/name': `row ${i}`, 'bup/n': i, 'bup/group': { 'svc/id': groups[0] } },
        },
      })),
    });
    return out.map((r: Entity) => r['svc/id'] as string);
  };
  const read = async (ids: string[]) => {
    const rows = await h.run('svc.entity/query', {
      query: {
        'q/from': T,
        'q/select': ALL,
        'q/where': ['q/in', ['svc/id'], '$ids'],
        'q/limit': 'q/no-limit',
      },
      params: { $ids: ids },
    });
    const byId = new Map(rows.map((r: Entity) => [r['svc/id'], r]));
    return ids.map((id) => byId.get(id) as Entity);
  };
  /** Updates for the entities `ids`: varied fields, values the database prints its own way, nulls. */
  const changes = (ids: string[]): Entity[] =>
    ids.map((id, i) => {
      const all: Entity = {
        'svc/id': i % 4 === 0 ? id.toUpperCase() : id,
        'bup/name': i % 7 === 0 ? null : `new\t${i} ✓`,
        'bup/n': i * 3 - 10,
        'bup/d': i % 5 === 0 ? '1.50e1' : `${i}.25`,
        'bup/flag': i % 2 === 0,
        'bup/day': `2026-04-${String((i % 28) + 1).padStart(2, '0')}`,
        'bup/at': `2026-05-01T10:${String(i % 60).padStart(2, '0')}:00+02:00`,
        'bup/u': i % 3 === 0 ? null : randomUUID(),
        'bup/group': i % 6 === 0 ? null : { 'svc/id': groups[i % 2] },
        'svc/modification-date': '2000-01-01T00:00:00.000Z',
      };
      // A third set every field, a third two of them, a third one (in another order).
      if (i % 3 === 0) return all;
      if (i % 3 === 1) return { 'bup/flag': all['bup/flag'], 'svc/id': all['svc/id'], 'bup/n': all['bup/n'] };
      return { 'bup/group': all['bup/group'], 'svc/id': all['svc/id'] };
    });

  beforeAll(async () => {
    await rx.start();
    await h.run('schema.type/create', typeArgs(G));
    await h.run(
      'schema.type/create',
      typeArgs(T, [
        ['bup/n', 'svc/int'],
        ['bup/d', 'svc/decimal'],
        ['bup/flag', 'svc/bool'],
        ['bup/day', 'svc/date'],
        ['bup/at', 'svc/date-time'],
        ['bup/u', 'svc/uuid'],
        ['bup/group', G],
        ['bup/tags', G, { 'svc/collection?': true }],
        ['bup/owner', G, { 'svc/relation': OWNS }],
      ]),
    );
    await h.run('schema.field/create', {
      'svc/holder-type': G,
      'svc/name': 'bup/items',
      'svc/type': T,
      'svc/meta': { 'svc/relation': OWNS, 'svc/collection?': true },
    });
    groups = [randomUUID(), randomUUID()];
    await h.run('svc.command/batch', {
      commands: groups.map((id) => ({
        command: 'svc.entity/create',
        args: { type: G, entity: { 'svc/id': id } },
      })),
    });
  });
  afterAll(() => rx.stop());

  it('answers and stores what the same updates one at a time do', async () => {
    const [a, b] = [await create(40), await create(40)];
    const before = await read(a);
    const together = await h.run('svc.command/batch', batch(changes(a), true));
    const alone = (await h.run('svc.command/batch', batch(changes(b), false))).filter(
      (_: unknown, i: number) => i % 2 === 0,
    );
    expect(together.map(own)).toEqual(alone.map(own));
    // Each answer is its entity as now stored, and only what the update named changed.
    const stored = await read(a);
    expect(together).toEqual(stored);
    expect(stored[0]).toMatchObject({
      'bup/name': null,
      'bup/d': '15.0',
      'bup/at': '2026-05-01T08:00:00.000Z',
    });
    expect(stored[1]).toMatchObject({ 'bup/name': 'row 1', 'bup/n': -7, 'bup/flag': false });
    expect(stored[2]).toMatchObject({
      'bup/name': 'row 2',
      'bup/n': 2,
      'bup/group': { 'svc/id': groups[0] },
    });
    expect(stored[5]?.['bup/group']).toEqual({ 'svc/id': groups[1] });
    // Those that set only their group set the one they have (i % 6 === 2): no change, so their
    // modification date stays.
    for (const [i, row] of stored.entries()) {
      expect(row['svc/public-id']).toBe(before[i]!['svc/public-id']);
      const [now, then] = [row, before[i]!].map((r) => Date.parse(r['svc/modification-date'] as string));
      if (i % 6 === 2) expect(now).toBe(then);
      else expect(now).toBeGreaterThan(then!);
    }
  });

  /** How many statements the transactions `fn` runs send. */
  const statementsOf = async (fn: () => Promise<unknown>) => {
    const d = h.ws.driver as unknown as Record<string, any>;
    const transaction = d.transaction;
    let statements = 0;
    d.transaction = (fn: (tx: unknown) => Promise<unknown>) =>
      transaction.call(d, (tx: Record<string, any>) =>
        fn(
          new Proxy(tx, {
            get: (t, k) => {
              if (k === 'query') statements++;
              return typeof t[k as string] === 'function' ? t[k as string].bind(t) : t[k as string];
            },
          }),
        ),
      );
    try {
      await fn();
    } finally {
      d.transaction = transaction;
    }
    return statements;
  };

  it('makes a run in a few statements, not a few per update', async () => {
    const ids = await create(200);
    const statements = await statementsOf(() => h.run('svc.command/batch', batch(changes(ids), true)));
    // The catalog check, what listens to the type, one UPDATE per set of fields named (three here);
    // with a listener, the rows before too. One at a time it was three a row.
    expect(statements).toBeLessThanOrEqual(6);
    expect(statements).toBeGreaterThan(0);
  });

  it('updates an entity named twice twice, each answer what its update left', async () => {
    const [id] = await create(1);
    const [other] = await create(1);
    const out = await h.run('svc.command/batch', {
      commands: [
        update({ 'svc/id': id, 'bup/n': 1 }),
        update({ 'svc/id': other, 'bup/n': 5 }),
        update({ 'svc/id': id, 'bup/flag': true }),
      ],
    });
    expect(out[0]).toMatchObject({ 'bup/n': 1, 'bup/flag': null });
    expect(out[2]).toMatchObject({ 'bup/n': 1, 'bup/flag': true });
    expect((await read([id!]))[0]).toEqual(out[2]);
  });

  it('fails as one at a time does: the first failure in order, named by its command, nothing kept', async () => {
    const ids = await create(12);
    const before = await read(ids);
    const missing = randomUUID();
    const cases: Array<{ entities: Entity[]; at: number; message: string; code: string; status: number }> = [
      {
        entities: ids.map((id, i) => (i === 7 ? { 'svc/id': missing } : { 'svc/id': id, 'bup/n': i })),
        at: 7,
        message: `${T} ${missing} does not exist`,
        code: 'not-found',
        status: 404,
      },
      {
        // A missing entity before a bad value: the missing one is reported, as one at a time.
        entities: ids.map((id, i) =>
          i === 4 ? { 'svc/id': missing } : { 'svc/id': id, 'bup/n': i === 9 ? 'nine' : i },
        ),
        at: 4,
        message: `${T} ${missing} does not exist`,
        code: 'not-found',
        status: 404,
      },
      {
        entities: ids.map((id, i) =>
          i === 9 ? { 'svc/id': missing } : { 'svc/id': id, 'bup/n': i === 4 ? 'x' : i },
        ),
        at: 4,
        message: 'Field bup/n (svc/int) cannot hold "x"',
        code: 'invalid-value',
        status: 400,
      },
      {
        // Found only by the database, for two entities: the first in order is reported.
        entities: ids.map((id, i) => ({
          'svc/id': id,
          'bup/group': { 'svc/id': i === 6 || i === 3 ? missing : groups[1] },
        })),
        at: 3,
        message: `Updating ${T}: a referenced entity does not exist`,
        code: 'invalid-value',
        status: 400,
      },
      {
        entities: ids.map((id, i) => ({ 'svc/id': id, ...(i === 2 ? { 'bup/nope': 1 } : { 'bup/n': 0 }) })),
        at: 2,
        message: '',
        code: '',
        status: 400,
      },
    ];
    for (const c of cases) {
      // After a create, so that the run does not start the batch.
      const lead = { command: 'svc.entity/create', args: { type: G, entity: {} } };
      const together = await h.attempt('svc.command/batch', {
        commands: [lead, ...batch(c.entities, true).commands],
      });
      const alone = await h.attempt('svc.command/batch', { commands: [lead, ...c.entities.map(update)] });
      expect(together.success).toBe(false);
      expect(together).toEqual(alone);
      expect(together.error.message).toMatch(
        new RegExp(`^commands\\[${c.at + 1}\\] \\(svc\\.entity/update\\): `),
      );
      if (c.code) {
        expect(together.error).toEqual({
          name: `weft.error/${c.code}`,
          message: `commands[${c.at + 1}] (svc.entity/update): ${c.message}`,
          code: c.code,
          status: c.status,
        });
      }
    }
    expect(await read(ids)).toEqual(before);
  });

  it('delivers the effects one at a time delivers, in order, values before and after', async () => {
    const [a, b] = [await create(30), await create(30)];
    const hook = (await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: T })).body;
    rx.bodies.length = 0;
    await h.run('svc.command/batch', batch(changes(a), true));
    await h.run('svc.command/batch', batch(changes(b), false));
    const [{ body: together }, { body: alone }] = await rx.until(2);
    const effects = (d: { effects: Entity[] }) =>
      d.effects.map((e) => ({
        ...e,
        id: undefined,
        values: own(e.values as Entity),
        valuesBefore: own(e.valuesBefore as Entity),
      }));
    // Those that set only their group set the one they have (i % 6 === 2): no change, no effect.
    const changed = a.filter((_, i) => i % 6 !== 2);
    expect(together.effects).toHaveLength(25);
    expect(effects(together)).toEqual(effects(alone));
    expect(together.effects.map((e: Entity) => e.id)).toEqual(changed);
    expect(together.effects[1]).toMatchObject({
      effect: 'svc.entity/update',
      type: T,
      values: { 'bup/flag': false, 'bup/n': -7 },
      valuesBefore: { 'bup/flag': null, 'bup/n': 1 },
    });
    // Listened to, the entities are read before: one missing fails as one at a time, nothing sent.
    const missing = randomUUID();
    const failing = [...a.slice(0, 3), missing, ...a.slice(3, 6)].map((id) => ({ 'svc/id': id, 'bup/n': 1 }));
    const run = await h.attempt('svc.command/batch', batch(failing, true));
    expect(run.error).toEqual({
      name: 'weft.error/not-found',
      message: `commands[3] (svc.entity/update): ${T} ${missing} does not exist`,
      code: 'not-found',
      status: 404,
    });
    const each = await h.attempt('svc.command/batch', batch(failing, false));
    expect(each.error.message).toBe(`commands[6] (svc.entity/update): ${T} ${missing} does not exist`);
    await h.ws.webhooks?.idle();
    expect(rx.bodies).toHaveLength(2);
    await h.request('DELETE', `/api/webhooks/v2/${hook.id}`);
  });

  it('answers null per update to an in-process caller that reads no results, and still updates', async () => {
    const ids = await create(5);
    const [result] = await h.ws.execute([{ command: 'svc.command/batch', args: batch(changes(ids), true) }], {
      createResults: false,
    });
    expect(result).toEqual({ success: true, result: [null, null, null, null, null] });
    expect((await read(ids))[1]).toMatchObject({ 'bup/n': -7, 'bup/flag': false });
  });

  it('deletes a run as one at a time does, in a few statements, with its effects in order', async () => {
    const [a, b] = [await create(40), await create(40)];
    const hook = (await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: T })).body;
    rx.bodies.length = 0;
    // Each effect carries the entity's plain values as they were (not its id, not its relations).
    const was = new Map(
      (await read([...a, ...b])).map((r) => [
        r['svc/id'],
        Object.fromEntries(
          Object.entries(r).filter(([k]) => !['svc/id', 'bup/group', 'bup/owner'].includes(k)),
        ),
      ]),
    );
    const deleted = (id: string) => ({ effect: 'svc.entity/delete', id, type: T, valuesBefore: was.get(id) });
    const gone = (ids: string[]) => ids.map((id, i) => ({ 'svc/id': i % 4 === 0 ? id.toUpperCase() : id }));
    let together: unknown[] = [];
    const statements = await statementsOf(async () => {
      together = await h.run('svc.command/batch', batch(gone(a), true, remove));
    });
    const alone = (await h.run('svc.command/batch', batch(gone(b), false, remove))).filter(
      (_: unknown, i: number) => i % 2 === 0,
    );
    expect(together).toEqual(alone);
    expect(together).toEqual(a.map(() => 'ok'));
    expect(statements).toBeLessThanOrEqual(6);
    expect(await read([...a, ...b])).toEqual([...a, ...b].map(() => undefined));
    const [{ body: first }, { body: second }] = await rx.until(2);
    expect(first.effects).toEqual(a.map(deleted));
    expect(second.effects).toEqual(b.map(deleted));
    expect(first.effects[0].valuesBefore).toMatchObject({ 'bup/name': 'row 0', 'bup/n': 0 });
    await h.request('DELETE', `/api/webhooks/v2/${hook.id}`);
  });

  it('fails a run of deletes as one at a time does, nothing deleted', async () => {
    const ids = await create(10);
    const before = await read(ids);
    const missing = randomUUID();
    const cases: Array<{ entities: Entity[]; at: number; message: string }> = [
      {
        entities: ids.map((id, i) => ({ 'svc/id': i === 6 ? missing : id })),
        at: 6,
        message: `${T} ${missing} does not exist`,
      },
      {
        // Named twice: the second delete finds nothing.
        entities: ids.map((id, i) => ({ 'svc/id': i === 5 ? ids[2] : id })),
        at: 5,
        message: `${T} ${ids[2]} does not exist`,
      },
      {
        // A missing one before a malformed one: the missing one is reported.
        entities: ids.map((id, i) => (i === 8 ? { id } : { 'svc/id': i === 3 ? missing : id })),
        at: 3,
        message: `${T} ${missing} does not exist`,
      },
      {
        entities: ids.map((id, i) => (i === 4 ? { id } : { 'svc/id': id })),
        at: 4,
        message: 'entity must be {"svc/id": <uuid>}',
      },
    ];
    for (const c of cases) {
      const lead = { command: 'svc.entity/create', args: { type: G, entity: {} } };
      const together = await h.attempt('svc.command/batch', {
        commands: [lead, ...c.entities.map(remove)],
      });
      expect(together.success).toBe(false);
      expect(together.error.message).toBe(`commands[${c.at + 1}] (svc.entity/delete): ${c.message}`);
      // One at a time gives the same answer, the commands apart.
      const oneByOne = await h.attempt('svc.command/batch', {
        commands: [lead, ...c.entities.flatMap((e) => [remove(e), nothing])],
      });
      expect(oneByOne.error.message).toBe(`commands[${2 * c.at + 1}] (svc.entity/delete): ${c.message}`);
      expect(together.error.code).toBe(oneByOne.error.code);
      expect(together.error.status).toBe(oneByOne.error.status);
    }
    expect(await read(ids)).toEqual(before);
  });

  it('property: any run of updates and deletes answers, fails and stores as one at a time', async () => {
    // Two pools of entities alike; commands name a pool entity by its position, or one that does
    // not exist, with values good and bad.
    const value = fc.oneof(
      fc.integer({ min: -50, max: 50 }),
      fc.constantFrom('7', 'x', null, '1e3', 2 ** 60),
    );
    const command = fc.record({
      kind: fc.constantFrom('update', 'update', 'update', 'delete'),
      at: fc.integer({ min: 0, max: 5 }),
      n: fc.option(value, { nil: undefined }),
      flag: fc.option(fc.constantFrom(true, false, 'yes'), { nil: undefined }),
      group: fc.option(fc.constantFrom(0, 1, 2), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 2, maxLength: 10 }), async (specs) => {
        const missing = randomUUID();
        const [a, b] = [await create(5), await create(5)];
        const commands = (pool: string[]) =>
          specs.map((c) => {
            const entity: Entity = { 'svc/id': c.at < 5 ? pool[c.at] : missing };
            if (c.kind === 'delete') return remove(entity);
            if (c.n !== undefined) entity['bup/n'] = c.n;
            if (c.flag !== undefined) entity['bup/flag'] = c.flag;
            if (c.group !== undefined)
              entity['bup/group'] = c.group === 2 ? { 'svc/id': missing } : { 'svc/id': groups[c.group] };
            return update(entity);
          });
        const together = await h.attempt('svc.command/batch', { commands: commands(a) });
        const alone = await h.attempt('svc.command/batch', {
          commands: commands(b).flatMap((c) => [c, nothing]),
        });
        expect(together.success).toBe(alone.success);
        if (together.success) {
          const own2 = (rs: unknown[]) => rs.map((r) => (typeof r === 'object' && r ? own(r as Entity) : r));
          expect(own2(together.result.map((e: { result: unknown }) => e.result))).toEqual(
            own2(
              alone.result
                .filter((_: unknown, i: number) => i % 2 === 0)
                .map((e: { result: unknown }) => e.result),
            ),
          );
        } else {
          const at = (m: string) => Number(/^commands\[(\d+)\]/.exec(m)?.[1]);
          expect(2 * at(together.error.message)).toBe(at(alone.error.message));
          const rest = (m: string) => m.replace(/^commands\[\d+\] /, '').replaceAll(a.join('|'), '');
          expect(rest(together.error.message).replace(/[0-9a-f-]{36}/g, 'ID')).toBe(
            rest(alone.error.message).replace(/[0-9a-f-]{36}/g, 'ID'),
          );
          expect([together.error.code, together.error.status]).toEqual([
            alone.error.code,
            alone.error.status,
          ]);
        }
        const [ra, rb] = [await read(a), await read(b)];
        expect(ra.map((r) => r && own(r))).toEqual(rb.map((r) => r && own(r)));
      }),
      { numRuns: 25 },
    );
  });

  describe('changes of one collection field', () => {
    const link = (mode: 'add' | 'remove', type: string, field: string, id: string, items: string[]) => ({
      command: `svc.entity/${mode}-collection-items`,
      args: { type, field, entity: { 'svc/id': id }, items: items.map((i) => ({ 'svc/id': i })) },
    });
    const spaced = (commands: unknown[]) => commands.flatMap((c) => [c, nothing]);
    const newGroups = async (n: number) =>
      (
        await h.run('svc.command/batch', {
          commands: Array.from({ length: n }, () => ({
            command: 'svc.entity/create',
            args: { type: G, entity: {} },
          })),
        })
      ).map((r: Entity) => r['svc/id'] as string);
    /** Each entity's collection, as item ids in order. */
    const held = async (type: string, field: string, ids: string[]) => {
      const rows = await h.run('svc.entity/query', {
        query: {
          'q/from': type,
          'q/select': ['svc/id', field],
          'q/where': ['q/in', ['svc/id'], '$ids'],
          'q/limit': 'q/no-limit',
        },
        params: { $ids: ids },
      });
      const byId = new Map(
        rows.map((r: Entity) => [r['svc/id'], (r[field] as Entity[]).map((x) => x['svc/id']).sort()]),
      );
      return ids.map((id) => byId.get(id));
    };
    /** The same commands on two sets of entities, as one run and one at a time; their answers. */
    const both = async (make: (ids: string[], tags: string[]) => unknown[], type: string, n: number) => {
      const create = type === T ? (k: number) => createT(k) : newGroups;
      const [a, b] = [await create(n), await create(n)];
      const tags = await newGroups(4);
      const together = await h.run('svc.command/batch', { commands: make(a, tags) });
      const alone = (await h.run('svc.command/batch', { commands: spaced(make(b, tags)) })).filter(
        (_: unknown, i: number) => i % 2 === 0,
      );
      return { a, b, tags, together, alone };
    };
    const createT = (n: number) => create(n);

    it('links and unlinks a run of entities as one at a time does, in a few statements', async () => {
      const adds = (ids: string[], tags: string[]) =>
        ids.map((id, i) =>
          link('add', T, 'bup/tags', i % 3 === 0 ? id.toUpperCase() : id, [
            tags[i % 4]!,
            tags[(i + 1) % 4]!,
            tags[i % 4]!,
          ]),
        );
      const { a, b, tags, together, alone } = await both(adds, T, 30);
      expect(together).toEqual(alone);
      expect(together).toEqual(a.map(() => 'ok'));
      expect(await held(T, 'bup/tags', a)).toEqual(await held(T, 'bup/tags', b));
      expect((await held(T, 'bup/tags', a))[0]).toEqual([tags[0], tags[1]].sort());
      // A run of removals, some of links that are not there.
      const removes = (ids: string[]) =>
        ids.map((id, i) => link('remove', T, 'bup/tags', id, [tags[(i + 1) % 4]!, tags[3]!]));
      let statements = 0;
      statements = await statementsOf(() => h.run('svc.command/batch', { commands: removes(a) }));
      await h.run('svc.command/batch', { commands: spaced(removes(b)) });
      expect(await held(T, 'bup/tags', a)).toEqual(await held(T, 'bup/tags', b));
      expect((await held(T, 'bup/tags', a))[0]).toEqual([tags[0]]);
      // The catalog check, the entities, the links; what listens to the type.
      expect(statements).toBeLessThanOrEqual(5);
    });

    it('gives an item of a one-to-many side to the last entity that takes it, as one at a time', async () => {
      const items = await create(6);
      const owners = (ids: string[]) => [
        link('add', G, 'bup/items', ids[0]!, items.slice(0, 3)),
        link('add', G, 'bup/items', ids[1]!, items.slice(2, 5)),
        link('add', G, 'bup/items', ids[2]!, [items[5]!]),
        link('add', G, 'bup/items', ids[0]!, [items[4]!]),
      ];
      const [a, b] = [await newGroups(3), await newGroups(3)];
      const together = await h.run('svc.command/batch', { commands: owners(a) });
      expect(together).toEqual(['ok', 'ok', 'ok', 'ok']);
      expect(await held(G, 'bup/items', a)).toEqual([
        [items[0], items[1], items[4]].sort(),
        [items[2], items[3]].sort(),
        [items[5]],
      ]);
      // Without an entity twice, one statement; then a run of removals.
      await h.run('svc.command/batch', { commands: owners(b).slice(0, 3) });
      expect(await held(G, 'bup/items', b)).toEqual([
        [items[0], items[1]].sort(),
        [items[2], items[3], items[4]].sort(),
        [items[5]],
      ]);
      await h.run('svc.command/batch', {
        commands: [
          link('remove', G, 'bup/items', b[0]!, [items[0]!, items[2]!]),
          link('remove', G, 'bup/items', b[1]!, [items[2]!]),
        ],
      });
      expect(await held(G, 'bup/items', b)).toEqual([[items[1]], [items[3], items[4]].sort(), [items[5]]]);
    });

    it('tells of the links a change made or undid only, in a run as one at a time', async () => {
      const tags = await newGroups(3);
      const [a, b] = [await create(4), await create(4)];
      // Per set: four entities holding tags[0], two groups, the first holding its first item.
      await h.run('svc.command/batch', {
        commands: [...a, ...b].map((id) => link('add', T, 'bup/tags', id, [tags[0]!])),
      });
      const [ga, gb] = [await newGroups(2), await newGroups(2)];
      const [ia, ib] = [await create(3), await create(3)];
      await h.run('svc.command/batch', {
        commands: [
          link('add', G, 'bup/items', ga[0]!, [ia[0]!]),
          link('add', G, 'bup/items', gb[0]!, [ib[0]!]),
        ],
      });
      const hooks = [
        (await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: T })).body,
        (await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: G })).body,
      ];
      rx.bodies.length = 0;
      const joins = (ids: string[]) => [
        link('add', T, 'bup/tags', ids[0]!, [tags[0]!, tags[1]!]),
        link('add', T, 'bup/tags', ids[1]!, [tags[0]!]),
        link('add', T, 'bup/tags', ids[2]!, [tags[2]!]),
        link('add', T, 'bup/tags', ids[2]!, [tags[2]!, tags[1]!]),
      ];
      const unjoins = (ids: string[]) => [
        link('remove', T, 'bup/tags', ids[3]!, [tags[1]!]),
        link('remove', T, 'bup/tags', ids[0]!, [tags[0]!, tags[2]!]),
      ];
      const owns = (g: string[], items: string[]) => [
        link('add', G, 'bup/items', g[0]!, [items[0]!, items[1]!]),
        link('add', G, 'bup/items', g[1]!, [items[2]!]),
      ];
      const disowns = (g: string[], items: string[]) => [
        link('remove', G, 'bup/items', g[1]!, [items[0]!]),
        link('remove', G, 'bup/items', g[0]!, [items[0]!]),
      ];
      for (const make of [
        (ids: string[]) => joins(ids),
        (ids: string[]) => unjoins(ids),
        (_: string[], g: string[], items: string[]) => owns(g, items),
        (_: string[], g: string[], items: string[]) => disowns(g, items),
      ]) {
        await h.run('svc.command/batch', { commands: make(a, ga, ia) });
        await h.run('svc.command/batch', { commands: spaced(make(b, gb, ib)) });
      }
      const effect = (mode: string, type: string, field: string, id: string, items: string[]) => ({
        effect: `svc.entity/${mode}-collection-items`,
        id,
        type,
        field,
        items: items.map((i) => ({ 'svc/id': i })),
      });
      const expected = (ids: string[], g: string[], items: string[]) => [
        [
          effect('add', T, 'bup/tags', ids[0]!, [tags[1]!]),
          effect('add', T, 'bup/tags', ids[2]!, [tags[2]!]),
          effect('add', T, 'bup/tags', ids[2]!, [tags[1]!]),
        ],
        [effect('remove', T, 'bup/tags', ids[0]!, [tags[0]!])],
        [
          effect('add', G, 'bup/items', g[0]!, [items[1]!]),
          effect('add', G, 'bup/items', g[1]!, [items[2]!]),
        ],
        [effect('remove', G, 'bup/items', g[0]!, [items[0]!])],
      ];
      // One delivery per command, in order per webhook: the run's, then the same one at a time.
      const deliveries = await rx.until(8);
      const [ea, eb] = [expected(a, ga, ia), expected(b, gb, ib)];
      const of = (type: string, effects: Array<Array<{ type: string }>>) =>
        effects.filter((e) => e[0]!.type === type);
      const sent = deliveries.map((d) => d.body.effects);
      const wanted = ea.flatMap((e, i) => [e, eb[i]!]);
      for (const type of [T, G]) expect(of(type, sent)).toEqual(of(type, wanted));
      expect(sent).toHaveLength(8);
      for (const hook of hooks) await h.request('DELETE', `/api/webhooks/v2/${hook.id}`);
    });

    it('fails a run of collection changes as one at a time does, nothing kept', async () => {
      const ids = await create(8);
      const tags = await newGroups(2);
      const missing = randomUUID();
      const cases: Array<{ commands: unknown[]; at: number; message: string }> = [
        {
          commands: ids.map((id, i) => link('add', T, 'bup/tags', i === 5 ? missing : id, tags)),
          at: 5,
          message: `${T} ${missing} does not exist`,
        },
        {
          // Found only by the database: the first in order is reported.
          commands: ids.map((id, i) => link('add', T, 'bup/tags', id, i === 6 || i === 2 ? [missing] : tags)),
          at: 2,
          message: 'Changing bup/tags: a referenced entity does not exist',
        },
        {
          commands: tags.map((g: string, i: number) =>
            link('add', G, 'bup/items', g, i === 1 ? [missing] : [ids[0]!]),
          ),
          at: 1,
          message: `Some items are not entities of ${T}`,
        },
        {
          commands: ids.map((id, i) => link('add', T, i === 3 ? 'bup/n' : 'bup/tags', id, tags)),
          at: 3,
          message: 'Field bup/n is not a collection field',
        },
      ];
      const before = await held(T, 'bup/tags', ids);
      for (const c of cases) {
        const lead = { command: 'svc.entity/create', args: { type: G, entity: {} } };
        const together = await h.attempt('svc.command/batch', { commands: [lead, ...c.commands] });
        expect(together.success).toBe(false);
        expect(together.error.message).toBe(
          `commands[${c.at + 1}] (svc.entity/add-collection-items): ${c.message}`,
        );
        const alone = await h.attempt('svc.command/batch', { commands: [lead, ...spaced(c.commands)] });
        expect(alone.error.message).toBe(
          `commands[${2 * c.at + 1}] (svc.entity/add-collection-items): ${c.message}`,
        );
        expect([together.error.code, together.error.status]).toEqual([alone.error.code, alone.error.status]);
      }
      expect(await held(T, 'bup/tags', ids)).toEqual(before);
    });

    it('property: any run of link changes answers, fails and links as one at a time', async () => {
      // Two pools alike (groups and items); a change names pool members by position, or an entity
      // that does not exist; on the one-to-many side (a group's items) and the many-to-many one
      // (an item's tags, which are groups).
      const change = fc.record({
        side: fc.constantFrom('items', 'tags'),
        mode: fc.constantFrom('add', 'add', 'remove'),
        at: fc.integer({ min: 0, max: 3 }),
        items: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
      });
      await fc.assert(
        fc.asyncProperty(
          fc.array(change, { minLength: 2, maxLength: 8 }),
          fc.constantFrom('items', 'tags'),
          async (specs, side) => {
            const missing = randomUUID();
            const pools = [
              { groups: await newGroups(3), items: await create(6) },
              { groups: await newGroups(3), items: await create(6) },
            ];
            // One field a run: a run is made of consecutive changes of one field and mode.
            const commands = (pool: { groups: string[]; items: string[] }) =>
              specs.map((c) => {
                const mode = c.mode as 'add' | 'remove';
                const member = (list: string[], i: number) => (i < list.length ? list[i]! : missing);
                return side === 'items'
                  ? link(
                      mode,
                      G,
                      'bup/items',
                      member(pool.groups, c.at),
                      c.items.map((i) => member(pool.items, i)),
                    )
                  : link(
                      mode,
                      T,
                      'bup/tags',
                      member(pool.items, c.at),
                      c.items.map((i) => member(pool.groups, i % 4)),
                    );
              });
            const together = await h.attempt('svc.command/batch', { commands: commands(pools[0]!) });
            const alone = await h.attempt('svc.command/batch', { commands: spaced(commands(pools[1]!)) });
            expect(together.success).toBe(alone.success);
            if (together.success) {
              expect(together.result.map((e: { result: unknown }) => e.result)).toEqual(
                alone.result
                  .filter((_: unknown, i: number) => i % 2 === 0)
                  .map((e: { result: unknown }) => e.result),
              );
            } else {
              const at = (m: string) => Number(/^commands\[(\d+)\]/.exec(m)?.[1]);
              expect(2 * at(together.error.message)).toBe(at(alone.error.message));
              expect([together.error.code, together.error.status]).toEqual([
                alone.error.code,
                alone.error.status,
              ]);
            }
            // What each side links, by pool positions.
            const positions = async (pool: { groups: string[]; items: string[] }) => {
              const of = (list: string[], ids: unknown[] | undefined) =>
                (ids ?? []).map((id) => list.indexOf(id as string)).sort();
              const items = await held(G, 'bup/items', pool.groups);
              const tags = await held(T, 'bup/tags', pool.items);
              return {
                items: items.map((l) => of(pool.items, l as unknown[] | undefined)),
                tags: tags.map((l) => of(pool.groups, l as unknown[] | undefined)),
              };
            };
            expect(await positions(pools[0]!)).toEqual(await positions(pools[1]!));
          },
        ),
        { numRuns: 20 },
      );
    });

    it('delivers one effect per change, in order, as one at a time', async () => {
      const [a, b, tags] = [await create(10), await create(10), await newGroups(4)];
      const hook = (await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: T })).body;
      rx.bodies.length = 0;
      const adds = (ids: string[]) => ids.map((id, i) => link('add', T, 'bup/tags', id, [tags[i % 4]!]));
      await h.run('svc.command/batch', { commands: adds(a) });
      await h.run('svc.command/batch', { commands: spaced(adds(b)) });
      const [{ body: together }, { body: alone }] = await rx.until(2);
      const withoutIds = (d: { effects: Entity[] }) => d.effects.map((e) => ({ ...e, id: undefined }));
      expect(withoutIds(together)).toEqual(withoutIds(alone));
      expect(together.effects).toEqual(
        a.map((id: string, i: number) => ({
          effect: 'svc.entity/add-collection-items',
          id,
          type: T,
          field: 'bup/tags',
          items: [{ 'svc/id': tags[i % 4] }],
        })),
      );
      await h.request('DELETE', `/api/webhooks/v2/${hook.id}`);
    });
  });
});
