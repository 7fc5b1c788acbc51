import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

const TEAM = 'x/team';
const PERSON = 'x/person';
const TAG = 'x/tag';
const STATUS = `x/status_${PERSON}`;

describeEachDatabase('entities and the query object', (target) => {
  const h = useWorkspace(target);
  const ids: Record<string, string> = {};
  const q = (query: Record<string, unknown>, params?: Record<string, unknown>) =>
    h.run('svc.entity/query', { query, ...(params ? { params } : {}) });
  const names = (rows: any[]) => rows.map((r) => r['x/name']);

  beforeAll(async () => {
    const relation = randomUUID();
    const results = await h.commands([
      { command: 'schema.type/create', args: typeArgs(TEAM) },
      { command: 'schema.type/create', args: typeArgs(TAG) },
      {
        command: 'schema.type/create',
        args: typeArgs(PERSON, [
          ['x/age', 'svc/int'],
          ['x/salary', 'svc/decimal'],
          ['x/born', 'svc/date'],
          ['x/period', 'svc/date-range'],
          ['x/active', 'svc/bool'],
          ['x/team', TEAM, { 'svc/relation': relation }],
          ['x/tags', TAG, { 'svc/collection?': true }],
        ]),
      },
      {
        command: 'schema.field/create',
        args: {
          'svc/holder-type': TEAM,
          'svc/name': 'x/members',
          'svc/type': PERSON,
          'svc/meta': { 'svc/relation': relation, 'svc/collection?': true },
        },
      },
      { command: 'schema.enum/create', args: { 'svc/name': STATUS } },
      {
        command: 'schema.field/create',
        args: { 'svc/holder-type': PERSON, 'svc/name': 'x/status', 'svc/type': STATUS },
      },
    ]);
    expect(results.every((r) => r.success)).toBe(true);
    for (const [i, s] of ['Open', 'Closed'].entries()) {
      ids[s] = (
        await h.run('svc.entity/create', { type: STATUS, entity: { 'enum/name': s, 'svc/rank': i } })
      )['svc/id'];
    }
    for (const t of ['Red', 'Blue'])
      ids[t] = (await h.run('svc.entity/create', { type: TEAM, entity: { 'x/name': t } }))['svc/id'];
    for (const t of ['urgent', 'later'])
      ids[t] = (await h.run('svc.entity/create', { type: TAG, entity: { 'x/name': t } }))['svc/id'];
    const people: Array<[string, number, string, string, string, string, boolean, string]> = [
      ['Ann', 30, '1000.50', '1996-01-02', 'Red', 'Open', true, '2026-01-01'],
      ['Bob', 40, '2000', '1986-05-06', 'Red', 'Closed', false, '2026-03-01'],
      ['Cid', 25, '1500.25', '2001-07-08', 'Blue', 'Open', true, '2026-02-01'],
      ['Dee', 35, '900', '1991-09-10', 'Blue', 'Closed', true, '2025-12-01'],
    ];
    for (const [name, age, salary, born, team, status, active, start] of people) {
      const p = await h.run('svc.entity/create', {
        type: PERSON,
        entity: {
          'x/name': name,
          'x/age': age,
          'x/salary': salary,
          'x/born': born,
          'x/team': { 'svc/id': ids[team] },
          'x/status': { 'svc/id': ids[status] },
          'x/active': active,
          'x/period': { start, end: '2026-12-31' },
        },
      });
      ids[name] = p['svc/id'];
    }
    await h.run('svc.entity/add-collection-items', {
      type: PERSON,
      field: 'x/tags',
      entity: { 'svc/id': ids.Ann },
      items: [{ 'svc/id': ids.urgent }, { 'svc/id': ids.later }],
    });
    await h.run('svc.entity/add-collection-items', {
      type: PERSON,
      field: 'x/tags',
      entity: { 'svc/id': ids.Cid },
      items: [{ 'svc/id': ids.later }],
    });
  });

  // ---- create / update / delete ----

  it('svc.entity/create: given svc/id, public ids in sequence, dates set by the service, value shapes', async () => {
    const id = randomUUID();
    const before = Date.now();
    const t = await h.run('svc.entity/create', { type: TAG, entity: { 'svc/id': id, 'x/name': 'new' } });
    expect(t['svc/id']).toBe(id);
    expect(t['svc/public-id']).toBe('3');
    expect(Date.parse(t['svc/creation-date'])).toBeGreaterThanOrEqual(before - 5000);
    expect(t['svc/creation-date']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const p = (
      await q({
        'q/from': PERSON,
        'q/select': ['x/age', 'x/salary', 'x/born', 'x/active', 'x/team', 'x/status'],
        'q/limit': 1,
      })
    )[0];
    expect(p).toEqual({
      'x/age': 30,
      'x/salary': '1000.50',
      'x/born': '1996-01-02',
      'x/active': true,
      'x/team': { 'svc/id': ids.Red },
      'x/status': { 'svc/id': ids.Open },
    });
  });

  it('svc.entity/create returns every primitive and entity field, unset ones null, no collections', async () => {
    const p = await h.run('svc.entity/create', { type: PERSON, entity: { 'x/name': 'Eve' } });
    expect(p).toMatchObject({ 'x/name': 'Eve', 'x/team': null, 'x/status': null, 'x/age': null });
    expect(p).not.toHaveProperty('x/tags');
    await h.run('svc.entity/delete', { type: PERSON, entity: { 'svc/id': p['svc/id'] } });
  });

  // A create answers exactly what reading the new entity back answers, whoever formats the values
  // (the workspace itself when it knows how the database prints them, else the database).
  const SHAPE = 'x/shape';
  const shapeFields: Array<[string, string]> = [
    ['x/i', 'svc/int'],
    ['x/d', 'svc/decimal'],
    ['x/b', 'svc/bool'],
    ['x/t', 'svc/text'],
    ['x/day', 'svc/date'],
    ['x/at', 'svc/date-time'],
    ['x/u', 'svc/uuid'],
    ['x/j', 'svc/json-value'],
    ['x/r', 'svc/date-time-range'],
    ['x/team', TEAM],
  ];
  it.each([
    { case: 'plain values', e: { 'x/i': 7, 'x/d': '12.50', 'x/t': 'héllo 🎉', 'x/day': '2026-02-03' } },
    { case: 'nothing but the title', e: {} },
    { case: 'a decimal with leading zeros', e: { 'x/d': '007.50' } },
    { case: 'a decimal as a number', e: { 'x/d': 1e21 } },
    { case: 'a small decimal number', e: { 'x/d': 0.000001 } },
    { case: 'negative zero', e: { 'x/d': '-0.00' } },
    { case: 'a date-time with an offset', e: { 'x/at': '2026-03-01T10:00:00+02:00' } },
    { case: 'a date-time in microseconds', e: { 'x/at': '2026-03-01T10:00:00.123456Z' } },
    { case: 'upper-case uuids', e: { 'svc/id': 'UPPER', 'x/u': 'UPPER', 'x/team': 'Red' } },
    { case: 'a JSON value', e: { 'x/j': { b: 1, a: [2, { d: 3, c: null }] }, 'x/b': false } },
    {
      case: 'a date-time range',
      e: { 'x/r': { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00+01:00' } },
    },
    { case: 'a lone surrogate', e: { 'x/t': 'a\ud800b' } },
  ])('svc.entity/create answers what a query reads back: $case', async (c) => {
    const schema = await h.attempt('schema.type/create', typeArgs(SHAPE, shapeFields));
    expect(schema.success || schema.error.code === 'conflict').toBe(true);
    const entity = (name: string) => {
      const e: Record<string, unknown> = { 'x/name': name };
      for (const [k, v] of Object.entries(c.e)) {
        if (v === 'UPPER') e[k] = randomUUID().toUpperCase();
        else if (k === 'x/team') e[k] = { 'svc/id': ids.Red!.toUpperCase() };
        else e[k] = v;
      }
      return e;
    };
    // One create alone, and two in a batch (the grouped multi-row path).
    const single = await h.run('svc.entity/create', { type: SHAPE, entity: entity('one') });
    const batch = await h.run('svc.command/batch', {
      commands: ['two', 'three'].map((n) => ({
        command: 'svc.entity/create',
        args: { type: SHAPE, entity: entity(n) },
      })),
    });
    const all = ['svc/id', 'svc/public-id', 'svc/creation-date', 'svc/modification-date', 'x/name'];
    for (const created of [single, ...batch]) {
      const [read] = await q(
        {
          'q/from': SHAPE,
          'q/select': [...all, ...shapeFields.map(([n]) => n)],
          'q/where': ['=', ['svc/id'], '$id'],
        },
        { $id: created['svc/id'] },
      );
      expect(created).toEqual(read);
    }
    expect(Date.parse(batch[1]['svc/creation-date'])).toBeGreaterThanOrEqual(
      Date.parse(batch[0]['svc/creation-date']),
    );
  });

  it.each([
    [{ 'x/tags': [] }, 'invalid-args'],
    [{ 'x/team': { 'svc/id': randomUUID() } }, 'invalid-value'],
    [{ 'x/team': 'Red' }, 'invalid-value'],
    [{ 'x/age': 1.5 }, 'invalid-value'],
    [{ 'x/age': '3' }, 'invalid-value'],
    [{ 'x/salary': 'lots' }, 'invalid-value'],
    [{ 'x/born': '2026-02-30' }, 'invalid-value'],
    [{ 'x/active': 'yes' }, 'invalid-value'],
    [{ 'x/period': { start: '2026-01-01' } }, 'invalid-value'],
    [{ 'x/nope': 1 }, 'unknown-field'],
    [{ 'svc/id': 'not-a-uuid' }, 'invalid-value'],
  ])('svc.entity/create refuses %j (%s)', async (entity, code) => {
    expect(await h.attempt('svc.entity/create', { type: PERSON, entity })).toMatchObject({
      success: false,
      error: { code },
    });
  });

  it('svc.entity/create with an existing svc/id is a conflict', async () => {
    expect(
      await h.attempt('svc.entity/create', { type: TAG, entity: { 'svc/id': ids.urgent } }),
    ).toMatchObject({
      success: false,
      error: { code: 'conflict' },
    });
  });

  it('an update that sets values as they read already is no change; a decimal of another scale is one', async () => {
    await h.run(
      'schema.type/create',
      typeArgs('x/same', [
        ['x/d', 'svc/decimal'],
        ['x/at', 'svc/date-time'],
        ['x/j', 'svc/json-value'],
      ]),
    );
    const e = await h.run('svc.entity/create', {
      type: 'x/same',
      entity: { 'x/d': '15.0', 'x/at': '2026-05-01T08:00:00.000Z', 'x/j': { a: 1, b: [2] } },
    });
    await new Promise((r) => setTimeout(r, 5));
    const update = (values: Record<string, unknown>) =>
      h.run('svc.entity/update', { type: 'x/same', entity: { 'svc/id': e['svc/id'], ...values } });
    // The same instant at another offset, the same object with its keys in another order.
    const same = await update({
      'x/d': '15.0',
      'x/at': '2026-05-01T10:00:00+02:00',
      'x/j': { b: [2], a: 1 },
    });
    expect(same).toEqual(e);
    const scaled = await update({ 'x/d': '15' });
    expect(scaled['x/d']).toBe('15');
    expect(scaled['svc/modification-date'] > e['svc/modification-date']).toBe(true);
  });

  it('svc.entity/update returns the full entity and moves the modification date, unless nothing changed', async () => {
    const e = await h.run('svc.entity/create', { type: TAG, entity: { 'x/name': 'u' } });
    await new Promise((r) => setTimeout(r, 5));
    const u = await h.run('svc.entity/update', {
      type: TAG,
      entity: { 'svc/id': e['svc/id'], 'x/name': 'v' },
    });
    expect(u).toMatchObject({
      'svc/id': e['svc/id'],
      'x/name': 'v',
      'svc/creation-date': e['svc/creation-date'],
    });
    expect(u['svc/modification-date'] > e['svc/modification-date']).toBe(true);
    // The same value again is no change: the modification date stays.
    const same = await h.run('svc.entity/update', {
      type: TAG,
      entity: { 'svc/id': e['svc/id'], 'x/name': 'v' },
    });
    expect(same).toEqual(u);
    expect(
      await h.attempt('svc.entity/update', { type: TAG, entity: { 'svc/id': randomUUID(), 'x/name': 'v' } }),
    ).toMatchObject({
      success: false,
      error: { code: 'not-found' },
    });
    expect(
      await h.attempt('svc.entity/update', { type: PERSON, entity: { 'svc/id': ids.Ann, 'x/tags': [] } }),
    ).toMatchObject({
      success: false,
      error: { code: 'invalid-args' },
    });
  });

  it('svc.entity/delete removes the entity; entity fields pointing at it become null', async () => {
    const team = await h.run('svc.entity/create', { type: TEAM, entity: { 'x/name': 'Tmp' } });
    const p = await h.run('svc.entity/create', {
      type: PERSON,
      entity: { 'x/name': 'Tim', 'x/team': { 'svc/id': team['svc/id'] } },
    });
    expect(await h.run('svc.entity/delete', { type: TEAM, entity: { 'svc/id': team['svc/id'] } })).toBe('ok');
    const [after] = await q(
      { 'q/from': PERSON, 'q/select': ['x/team'], 'q/where': ['=', ['svc/id'], '$id'] },
      { $id: p['svc/id'] },
    );
    expect(after['x/team']).toBeNull();
    expect(
      await h.attempt('svc.entity/delete', { type: TEAM, entity: { 'svc/id': team['svc/id'] } }),
    ).toMatchObject({
      success: false,
      error: { code: 'not-found' },
    });
    await h.run('svc.entity/delete', { type: PERSON, entity: { 'svc/id': p['svc/id'] } });
  });

  it('add/remove-collection-items on a join collection and on the collection side of a relation', async () => {
    const tag = await h.run('svc.entity/create', { type: TAG, entity: { 'x/name': 'tmp' } });
    const args = {
      type: PERSON,
      field: 'x/tags',
      entity: { 'svc/id': ids.Bob },
      items: [{ 'svc/id': tag['svc/id'] }],
    };
    expect(await h.run('svc.entity/add-collection-items', args)).toBe('ok');
    expect(await h.run('svc.entity/add-collection-items', args)).toBe('ok'); // adding twice keeps one link
    const tagsOf = async () =>
      (
        await q(
          { 'q/from': PERSON, 'q/select': ['x/tags'], 'q/where': ['=', ['svc/id'], '$id'] },
          { $id: ids.Bob },
        )
      )[0]['x/tags'];
    expect(await tagsOf()).toEqual([{ 'svc/id': tag['svc/id'] }]);
    expect(await h.run('svc.entity/remove-collection-items', args)).toBe('ok');
    expect(await tagsOf()).toEqual([]);
    const missing = await h.attempt('svc.entity/add-collection-items', {
      ...args,
      items: [{ 'svc/id': randomUUID() }],
    });
    expect(missing).toMatchObject({ success: false, error: { code: 'invalid-value' } });
    // The collection side of x/team: adding moves the person's x/team.
    const p = await h.run('svc.entity/create', { type: PERSON, entity: { 'x/name': 'Mo' } });
    await h.run('svc.entity/add-collection-items', {
      type: TEAM,
      field: 'x/members',
      entity: { 'svc/id': ids.Blue },
      items: [{ 'svc/id': p['svc/id'] }],
    });
    const [moved] = await q(
      { 'q/from': PERSON, 'q/select': ['x/team'], 'q/where': ['=', ['svc/id'], '$id'] },
      { $id: p['svc/id'] },
    );
    expect(moved['x/team']).toEqual({ 'svc/id': ids.Blue });
    await h.run('svc.entity/remove-collection-items', {
      type: TEAM,
      field: 'x/members',
      entity: { 'svc/id': ids.Blue },
      items: [{ 'svc/id': p['svc/id'] }],
    });
    await h.run('svc.entity/delete', { type: PERSON, entity: { 'svc/id': p['svc/id'] } });
  });

  // ---- the query object, element by element ----

  const base = { 'q/from': PERSON, 'q/select': ['x/name'] };

  it('default order: creation date, then id', async () => {
    expect(names(await q(base))).toEqual(['Ann', 'Bob', 'Cid', 'Dee']);
  });

  it.each([
    ['=', ['x/age'], 30, ['Ann']],
    ['!=', ['x/age'], 30, ['Bob', 'Cid', 'Dee']],
    ['<', ['x/age'], 30, ['Cid']],
    ['>', ['x/age'], 30, ['Bob', 'Dee']],
    ['<=', ['x/age'], 30, ['Ann', 'Cid']],
    ['>=', ['x/age'], 35, ['Bob', 'Dee']],
    ['q/in', ['x/name'], ['Ann', 'Dee'], ['Ann', 'Dee']],
    ['q/not-in', ['x/name'], ['Ann', 'Dee'], ['Bob', 'Cid']],
    ['q/contains', ['x/name'], 'E', ['Dee']],
    ['>', ['x/salary'], '1000.25', ['Ann', 'Bob', 'Cid']],
    ['<', ['x/born'], '1990-01-01', ['Bob']],
    ['=', ['x/active'], false, ['Bob']],
    ['=', ['x/team'], null, []],
    ['=', ['x/team', 'x/name'], 'Blue', ['Cid', 'Dee']],
    ['=', ['x/status', 'enum/name'], 'Open', ['Ann', 'Cid']],
    ['>=', ['q/start', ['x/period']], '2026-02-01', ['Bob', 'Cid']],
    ['q/contains', ['x/tags'], null, null],
    ['=', ['x/tags', 'x/name'], 'later', ['Ann', 'Cid']],
  ])('q/where [%s %j $p] with p = %j', async (op, path, value, expected) => {
    const params = { $p: op === 'q/contains' && value === null ? ids.urgent : value };
    const rows = await q({ ...base, 'q/where': [op, path, '$p'] }, params);
    expect(names(rows)).toEqual(expected ?? ['Ann']);
  });

  it('q/and, q/or and q/not combine filters', async () => {
    const rows = await q(
      {
        ...base,
        'q/where': [
          'q/or',
          ['q/and', ['=', ['x/active'], '$t'], ['>', ['x/age'], '$a']],
          ['=', ['x/name'], '$n'],
        ],
      },
      { $t: true, $a: 30, $n: 'Bob' },
    );
    expect(names(rows)).toEqual(['Bob', 'Dee']);
    expect(
      names(await q({ ...base, 'q/where': ['q/not', ['=', ['x/active'], '$t']] }, { $t: true })),
    ).toEqual(['Bob']);
  });

  it('an inline null compares as a parameter holding null (= is empty, != is set)', async () => {
    for (const op of ['=', '!=']) {
      for (const path of [['x/team'], ['x/age'], ['x/team', 'x/name']]) {
        const inline = await q({ ...base, 'q/where': [op, path, null] });
        const param = await q({ ...base, 'q/where': [op, path, '$p'] }, { $p: null });
        expect(names(inline), `${op} ${path.join('.')}`).toEqual(names(param));
      }
    }
    // Only null: an inline value is still refused (below).
  });

  it.each([
    [['=', ['x/age'], 30], 'inline'],
    [['=', ['x/age'], '$missing'], 'missing'],
    [['~', ['x/age'], '$p'], 'operator'],
    [['=', ['x/nope'], '$p'], 'field'],
    [['<', ['x/period'], '$p'], 'range'],
  ])('q/where %j fails as a command error (%s)', async (where) => {
    const r = await h.attempt('svc.entity/query', {
      query: { ...base, 'q/where': where },
      params: { $p: 1 },
    });
    expect(r.success).toBe(false);
    expect(['invalid-query', 'unknown-field']).toContain(r.error.code);
  });

  it('q/order-by on several fields, including a related one', async () => {
    const rows = await q({
      ...base,
      'q/order-by': [
        [['x/team', 'x/name'], 'q/asc'],
        [['x/age'], 'q/desc'],
      ],
    });
    expect(names(rows)).toEqual(['Dee', 'Cid', 'Bob', 'Ann']);
    expect(names(await q({ ...base, 'q/order-by': [[['x/salary'], 'q/desc']] }))).toEqual([
      'Bob',
      'Cid',
      'Ann',
      'Dee',
    ]);
  });

  it('q/limit, q/offset and q/no-limit page through results', async () => {
    expect(names(await q({ ...base, 'q/limit': 2 }))).toEqual(['Ann', 'Bob']);
    expect(names(await q({ ...base, 'q/limit': 2, 'q/offset': 2 }))).toEqual(['Cid', 'Dee']);
    expect(names(await q({ ...base, 'q/limit': 'q/no-limit', 'q/offset': 3 }))).toEqual(['Dee']);
    expect((await h.attempt('svc.entity/query', { query: { ...base, 'q/limit': -1 } })).success).toBe(false);
  });

  it('q/select: entity and single-select sub-fields, collection sub-queries, aggregates', async () => {
    const rows = await q(
      {
        'q/from': TEAM,
        'q/select': [
          'x/name',
          { 'x/members': { 'q/select': ['x/name', { 'x/status': ['enum/name'] }], 'q/limit': 'q/no-limit' } },
          { count: ['q/count', ['x/members']] },
          { youngest: ['q/min', ['x/members', 'x/age']] },
          { oldest: ['q/max', ['x/members', 'x/age']] },
          { payroll: ['q/sum', ['x/members', 'x/salary']] },
          { avgAge: ['q/avg', ['x/members', 'x/age']] },
          { firstBorn: ['q/min', ['x/members', 'x/born']] },
        ],
        'q/where': ['=', ['x/name'], '$n'],
      },
      { $n: 'Red' },
    );
    expect(rows).toEqual([
      {
        'x/name': 'Red',
        'x/members': [
          { 'x/name': 'Ann', 'x/status': { 'enum/name': 'Open' } },
          { 'x/name': 'Bob', 'x/status': { 'enum/name': 'Closed' } },
        ],
        count: 2,
        youngest: 30,
        oldest: 40,
        payroll: '3000.50',
        avgAge: 35,
        firstBorn: '1986-05-06',
      },
    ]);
    const sub = await q({ 'q/from': PERSON, 'q/select': ['x/name', { 'x/team': ['x/name'] }], 'q/limit': 1 });
    expect(sub).toEqual([{ 'x/name': 'Ann', 'x/team': { 'x/name': 'Red' } }]);
    const bad = await h.attempt('svc.entity/query', {
      // (A numeric q/limit is taken, as the service's clients send it: service-clients.test.ts.)
      query: { 'q/from': TEAM, 'q/select': [{ 'x/members': { 'q/select': ['x/name'], 'q/limit': 'lots' } }] },
    });
    expect(bad).toMatchObject({ success: false, error: { code: 'invalid-query' } });
  });

  it('a collection sub-query may filter and order its items', async () => {
    const [red] = await q(
      {
        'q/from': TEAM,
        'q/select': [
          {
            'x/members': {
              'q/select': ['x/name'],
              'q/where': ['>', ['x/age'], '$a'],
              'q/order-by': [[['x/age'], 'q/desc']],
              'q/limit': 'q/no-limit',
            },
          },
        ],
        'q/where': ['=', ['x/name'], '$n'],
      },
      { $n: 'Red', $a: 1 },
    );
    expect(red['x/members']).toEqual([{ 'x/name': 'Bob' }, { 'x/name': 'Ann' }]);
  });

  it('the query is one SQL statement: filtering never reads the whole type', async () => {
    const { compileQuery } = await import('../src/query/compile-query.js');
    const { loadCatalog } = await import('../src/schema/catalog.js');
    const catalog = await loadCatalog(h.ws.driver);
    const { sql } = compileQuery(
      { catalog, user: h.ws.admin, params: { $p: 'Blue' } },
      { ...base, 'q/where': ['=', ['x/team', 'x/name'], '$p'], 'q/limit': 10 },
    );
    expect(sql.trim().startsWith('SELECT')).toBe(true);
    expect(sql).toContain('LEFT JOIN');
    expect(sql).toContain('LIMIT 10');
    expect(sql).not.toContain('Blue');
  });
});
