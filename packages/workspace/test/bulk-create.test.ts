import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COPY_MIN_ROWS, COPY_SLICE } from '../src/entities/entity-store.js';
import { lastCatalog } from '../src/schema/catalog.js';
import { deleteType } from '../src/schema/schema-store.js';
import { describeEachDatabase, innerResults, typeArgs, useWorkspace } from './support/databases.js';
import { hookReceiver } from './support/hook-receiver.js';

// A run of creates of one type inside svc.command/batch, COPY_MIN_ROWS long or longer, is loaded
// with COPY where the engine takes it; shorter runs use one INSERT. Both must answer alike.

const T = 'bulk/item';
const G = 'bulk/group';
const LONG = COPY_MIN_ROWS + 10;
const SHORT = Math.min(COPY_MIN_ROWS - 1, 40);

const creates = (entities: Array<Record<string, unknown>>, type = T) => ({
  commands: entities.map((entity) => ({ command: 'svc.entity/create', args: { type, entity } })),
});

/** Values that COPY's text format must escape, and every field type the bulk bench writes. */
function item(i: number, group: string | null): Record<string, unknown> {
  return {
    'bulk/name': ['tab\there', 'new\nline', 'back\\slash \\N', 'cr\r', 'ünï ✓ 😀', ''][i % 6]!,
    'bulk/n': i % 3 === 0 ? null : i * 7 - 100,
    'bulk/d': `${i}.${i % 10}5`,
    'bulk/flag': i % 2 === 0,
    'bulk/day': `2026-02-${String((i % 28) + 1).padStart(2, '0')}`,
    'bulk/at': `2026-03-01T10:${String(i % 60).padStart(2, '0')}:00+02:00`,
    'bulk/u': randomUUID().toUpperCase(),
    'bulk/group': group === null ? null : { 'svc/id': group },
  };
}

const ALL = [
  'svc/id',
  'svc/public-id',
  'svc/creation-date',
  'svc/modification-date',
  'bulk/name',
  'bulk/n',
  'bulk/d',
  'bulk/flag',
  'bulk/day',
  'bulk/at',
  'bulk/u',
  'bulk/group',
  'bulk/status',
];

describeEachDatabase('bulk creates in a batch', (target) => {
  const h = useWorkspace(target);
  const rx = hookReceiver();
  let groups: string[] = [];

  const all = async () =>
    h.run('svc.entity/query', { query: { 'q/from': T, 'q/select': ALL, 'q/limit': 'q/no-limit' } });

  beforeAll(async () => {
    await rx.start();
    await h.run('schema.type/create', typeArgs(G));
    await h.run(
      'schema.type/create',
      typeArgs(T, [
        ['bulk/n', 'svc/int'],
        ['bulk/d', 'svc/decimal'],
        ['bulk/flag', 'svc/bool'],
        ['bulk/day', 'svc/date'],
        ['bulk/at', 'svc/date-time'],
        ['bulk/u', 'svc/uuid'],
        ['bulk/group', G],
        ['bulk/status', 'svc/text', { 'svc/default-value': 'new' }],
      ]),
    );
    groups = [randomUUID(), randomUUID()];
    await h.run(
      'svc.command/batch',
      creates(
        groups.map((id) => ({ 'svc/id': id })),
        G,
      ),
    );
  });
  afterAll(() => rx.stop());

  it('a long run answers what the database then reads back, with public ids and creation dates in sequence', async () => {
    const before = (await all()).length;
    const short = await h.run(
      'svc.command/batch',
      creates(Array.from({ length: SHORT }, (_, i) => item(i, groups[i % 2]!))),
    );
    const long = await h.run(
      'svc.command/batch',
      creates(Array.from({ length: LONG }, (_, i) => item(i, i % 5 === 0 ? null : groups[i % 2]!))),
    );
    const after = await h.run('svc.command/batch', creates([item(1, null)]));
    const results = [...short, ...long, ...after];
    expect(results).toHaveLength(SHORT + LONG + 1);
    const stored = (await all()).slice(before);
    // The results are exactly the stored rows as the API prints them, in creation order.
    expect(results).toEqual(stored);
    const publicIds = results.map((r: any) => Number(r['svc/public-id']));
    expect(publicIds).toEqual(publicIds.map((_, i) => publicIds[0]! + i));
    const dates = results.map((r: any) => Date.parse(r['svc/creation-date']));
    expect([...dates].sort((a, b) => a - b)).toEqual(dates);
    expect(long[0]).toMatchObject({
      'bulk/name': 'tab\there',
      'bulk/n': null,
      'bulk/d': '0.05',
      'bulk/day': '2026-02-01',
      'bulk/at': '2026-03-01T08:00:00.000Z',
      'bulk/group': null,
      'bulk/status': 'new',
    });
    expect(long[3]['bulk/name']).toBe('cr\r');
    expect(long[2]['bulk/name']).toBe('back\\slash \\N');
    expect(long[1]['bulk/u']).toBe(long[1]['bulk/u'].toLowerCase());
  });

  it('a long run of a type with a rich-text field: each entity gets its document, the run answers as a short one', async () => {
    // The rows are checked first (documents go in before their owners), then copied.
    await h.run('schema.type/create', typeArgs('bulk/note', [['bulk/n', 'svc/int']]));
    await h.run('schema.field/create', {
      'svc/holder-type': 'bulk/note',
      'svc/name': 'bulk/body',
      'svc/type': 'Collaboration~Documents/Document',
      'svc/meta': { 'svc/entity-component?': true },
    });
    const notes = (n: number, from: number) =>
      creates(
        Array.from({ length: n }, (_, i) => ({ 'bulk/name': `note ${from + i}`, 'bulk/n': from + i })),
        'bulk/note',
      );
    const out = [
      ...(await h.run('svc.command/batch', notes(SHORT, 0))),
      ...(await h.run('svc.command/batch', notes(LONG, SHORT))),
    ];
    const stored = await h.run('svc.entity/query', {
      query: {
        'q/from': 'bulk/note',
        'q/select': [
          'svc/id',
          'bulk/name',
          'bulk/n',
          { 'bulk/body': ['svc/id', 'Collaboration~Documents/secret'] },
        ],
        'q/order-by': [[['bulk/n'], 'q/asc']],
        'q/limit': 'q/no-limit',
      },
    });
    expect(stored).toHaveLength(SHORT + LONG);
    for (const [i, row] of stored.entries()) {
      expect(row).toMatchObject({ 'svc/id': out[i]['svc/id'], 'bulk/name': `note ${i}`, 'bulk/n': i });
      expect(row['bulk/body']).toEqual({
        'svc/id': out[i]['bulk/body']['svc/id'],
        'Collaboration~Documents/secret': expect.any(String),
      });
    }
    expect(new Set(stored.map((r: any) => r['bulk/body']['svc/id'])).size).toBe(SHORT + LONG);
  });

  it('values the database prints differently are answered as it prints them', async () => {
    const entities = Array.from({ length: LONG }, (_, i) => ({ 'bulk/d': i === 3 ? '1.50e1' : '2' }));
    const out = await h.run('svc.command/batch', creates(entities));
    expect(out[3]['bulk/d']).toBe('15.0');
    const stored = (await all()).slice(-LONG);
    expect(out).toEqual(stored);
  });

  it('a given svc/id that exists fails the whole batch with the error of a short run', async () => {
    const existing = (await h.run('svc.entity/create', { type: T, entity: {} }))['svc/id'];
    const count = (await all()).length;
    const attempt = async (n: number) => {
      const entities = Array.from({ length: n }, (_, i) => (i === 0 ? { 'svc/id': existing } : {}));
      return h.attempt('svc.command/batch', creates(entities));
    };
    const long = await attempt(LONG);
    const short = await attempt(SHORT);
    expect(long).toEqual(short);
    const error = {
      name: 'weft.error/conflict',
      message: `commands[0] (svc.entity/create): Creating ${T}: an entity with this svc/id already exists`,
      code: 'conflict',
      status: 409,
    };
    // The service's clients read a failure under `result`; `error` stays for weft's.
    expect(long).toEqual({ success: false, result: error, error });
    expect((await all()).length).toBe(count);
  });

  it('a missing referenced entity names the failing command, as a short run does, and rolls back', async () => {
    const count = (await all()).length;
    const at = SHORT - 3;
    const attempt = (n: number) =>
      h.attempt(
        'svc.command/batch',
        creates(
          Array.from({ length: n }, (_, i) => item(i, i === at ? randomUUID() : (groups[0] as string))),
        ),
      );
    const long = await attempt(LONG);
    const short = await attempt(SHORT);
    expect(long).toEqual(short);
    const error = {
      name: 'weft.error/invalid-value',
      message: `commands[${at}] (svc.entity/create): Creating ${T}: a referenced entity does not exist`,
      code: 'invalid-value',
      status: 400,
    };
    // The service's clients read a failure under `result`; `error` stays for weft's.
    expect(long).toEqual({ success: false, result: error, error });
    expect((await all()).length).toBe(count);
  });

  it('invalid entities and ids given twice fail as in a short run, checked in the same order', async () => {
    const count = (await all()).length;
    const twice = randomUUID();
    const cases: Array<(i: number) => Record<string, unknown>> = [
      (i) => (i === 30 ? { 'bulk/n': 'x' } : {}),
      (i) => (i === 5 || i === 20 ? { 'svc/id': twice } : {}),
      (i) => (i === 5 || i === 20 ? { 'svc/id': twice } : i === 35 ? { 'bulk/day': '2026-02-30' } : {}),
      (i) => (i === 0 ? { 'bulk/nope': 1 } : {}),
    ];
    for (const entity of cases) {
      const long = await h.attempt(
        'svc.command/batch',
        creates(Array.from({ length: LONG }, (_, i) => entity(i))),
      );
      const short = await h.attempt(
        'svc.command/batch',
        creates(Array.from({ length: SHORT }, (_, i) => entity(i))),
      );
      expect(long.success).toBe(false);
      expect(long).toEqual(short);
    }
    expect(
      (
        await h.attempt(
          'svc.command/batch',
          creates(Array.from({ length: LONG }, (_, i) => (i === 30 ? { 'bulk/n': 'x' } : {}))),
        )
      ).error.message,
    ).toMatch(/^commands\[30\] /);
    expect((await all()).length).toBe(count);
    // The same connections go on working.
    expect(await h.run('svc.command/batch', creates(Array.from({ length: LONG }, () => ({}))))).toHaveLength(
      LONG,
    );
  });

  it('rows naming their fields in different orders: values land in their own fields, and the first bad name or value of a row is the one reported, as in a short run', async () => {
    const count = (await all()).length;
    const orders = (i: number): Record<string, unknown> =>
      i % 3 === 0
        ? { 'bulk/n': i, 'bulk/name': `n${i}`, 'bulk/day': '2026-01-02' }
        : i % 3 === 1
          ? { 'bulk/day': '2026-01-03', 'bulk/n': i, 'bulk/name': `n${i}` }
          : { 'bulk/name': `n${i}`, 'bulk/flag': true };
    const out = await h.run('svc.command/batch', creates(Array.from({ length: LONG }, (_, i) => orders(i))));
    expect(out).toEqual((await all()).slice(-LONG));
    expect(out.map((r: any) => [r['bulk/name'], r['bulk/n'], r['bulk/day'], r['bulk/flag']])).toEqual(
      Array.from({ length: LONG }, (_, i) => [
        `n${i}`,
        i % 3 === 2 ? null : i,
        i % 3 === 2 ? null : i % 3 === 0 ? '2026-01-02' : '2026-01-03',
        i % 3 === 2 ? true : null,
      ]),
    );
    const failures: Array<[Record<string, unknown>, string]> = [
      // a bad value before an unknown name, in an order no row before had
      [{ 'bulk/n': 'x', 'bulk/nope': 1 }, 'Field bulk/n (svc/int) cannot hold "x"'],
      [{ 'bulk/nope': 1, 'bulk/n': 'x' }, `Type ${T} has no field "bulk/nope"`],
      // an order seen before, with a bad value in its last field
      [{ 'bulk/day': '2026-01-03', 'bulk/n': 1, 'bulk/name': 7 }, 'Field bulk/name (svc/text) cannot hold 7'],
    ];
    for (const [bad, message] of failures) {
      const run = (length: number, at: number) =>
        h.attempt(
          'svc.command/batch',
          creates(Array.from({ length }, (_, i) => (i === at ? bad : orders(i)))),
        );
      const long = await run(LONG, SHORT - 1);
      expect(long.error.message).toBe(`commands[${SHORT - 1}] (svc.entity/create): ${message}`);
      expect(long).toEqual(await run(SHORT, SHORT - 1));
    }
    expect((await all()).length).toBe(count + LONG);
  });

  it('a run longer than a COPY slice, its later rows checked while the rows before are copied: their failures and values the database prints differently answer as in a short run', async () => {
    const count = (await all()).length;
    const n = COPY_SLICE * 2 + 10;
    const late = COPY_SLICE + 5;
    const twice = randomUUID();
    const run = (entity: (i: number) => Record<string, unknown>, length: number) =>
      h.attempt('svc.command/batch', creates(Array.from({ length }, (_, i) => entity(i))));
    const failures: Array<[Record<string, unknown>, number]> = [
      [{ 'bulk/n': 'x' }, late],
      [{ 'bulk/day': '2026-02-30' }, late],
      [{ 'bulk/group': { 'svc/id': randomUUID() } }, late],
      // also given at index 3: an id given twice is named at the run's first command
      [{ 'svc/id': twice }, 0],
    ];
    for (const [bad, position] of failures) {
      const dup = 'svc/id' in bad;
      const entity = (at: number) => (i: number) => (i === at || (dup && i === 3) ? bad : {});
      const long = await run(entity(late), n);
      const short = await run(entity(SHORT - 1), SHORT);
      expect(short.success).toBe(false);
      // The failure of a short run, named at its own place in the batch.
      const named = JSON.stringify(short).replaceAll(
        `commands[${dup ? 0 : SHORT - 1}]`,
        `commands[${position}]`,
      );
      expect(long).toEqual(JSON.parse(named));
    }
    expect((await all()).length).toBe(count);
    const out = await h.run(
      'svc.command/batch',
      creates(Array.from({ length: n }, (_, i) => ({ 'bulk/d': i === late ? '1.50e1' : '2' }))),
    );
    expect(out[late]['bulk/d']).toBe('15.0');
    expect(out).toEqual((await all()).slice(-n));
  });

  it('a run after other commands in the batch: positions, and a failure later in the batch undoes it', async () => {
    const count = (await all()).length;
    const batch = creates(Array.from({ length: LONG }, (_, i) => item(i, null)));
    const failed = await h.attempt('svc.command/batch', {
      commands: [
        { command: 'svc.entity/create', args: { type: G, entity: {} } },
        ...batch.commands,
        { command: 'svc.entity/delete', args: { type: T, entity: { 'svc/id': randomUUID() } } },
      ],
    });
    expect(failed.success).toBe(false);
    expect(failed.error.message).toMatch(new RegExp(`^commands\\[${LONG + 1}\\] \\(svc\\.entity/delete\\)`));
    expect((await all()).length).toBe(count);
  });

  it('a schema changed behind the last loaded catalog: a long run that starts a batch still answers right', async () => {
    // Another process changed the schema: the catalog this one holds is no longer the current one.
    await h.ws.driver.query(`UPDATE svc_meta SET value = gen_random_uuid()::text WHERE key = 'schema_token'`);
    const out = await h.run(
      'svc.command/batch',
      creates(Array.from({ length: LONG }, (_, i) => item(i, groups[0]!))),
    );
    expect(out).toEqual((await all()).slice(-LONG));
    const { rows } = await h.ws.driver.query<{ value: string }>(
      `SELECT value FROM svc_meta WHERE key = 'schema_token'`,
    );
    expect(lastCatalog()?.token).toBe(rows[0]!.value);
  });

  it('a type deleted behind the last loaded catalog: a long run of it fails as a short run does', async () => {
    const gone = 'bulk/gone';
    await h.run('schema.type/create', typeArgs(gone, [['bulk/n', 'svc/int']]));
    const run = (n: number) =>
      h.attempt(
        'svc.command/batch',
        creates(
          Array.from({ length: n }, (_, i) => ({ 'bulk/n': i })),
          gone,
        ),
      );
    expect((await run(LONG)).success).toBe(true);
    // Deleted by another process: this one's catalog still holds the type (and its dropped table).
    await h.ws.driver.transaction(async (tx) => deleteType(tx, lastCatalog()!, gone, true, true));
    expect(lastCatalog()?.types.some((t) => t.name === gone)).toBe(true);
    const long = await run(LONG);
    expect(long.success).toBe(false);
    expect(long).toEqual(await run(SHORT));
    expect(long.error.code).toBe('unknown-type');
    expect(await h.run('svc.command/batch', creates(Array.from({ length: LONG }, () => ({}))))).toHaveLength(
      LONG,
    );
  });

  it('one webhook delivery for the batch, holding one create effect per entity with its result', async () => {
    const hook = (await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: T })).body;
    const correlationId = randomUUID();
    const [r] = await h.commands([
      {
        command: 'svc.command/batch',
        correlationId,
        args: creates(Array.from({ length: LONG }, (_, i) => item(i, groups[1]!))),
      },
    ]);
    expect(r.success).toBe(true);
    const [{ body: delivery }] = await rx.until(1);
    expect(delivery.command).toEqual({ correlationId });
    expect(delivery.effects).toEqual(
      innerResults(undefined, r.result).map((e: any) => ({
        effect: 'svc.entity/create',
        id: e['svc/id'],
        type: T,
        values: e,
      })),
    );
    await h.ws.webhooks?.idle();
    expect(rx.bodies).toHaveLength(1);
    await h.request('DELETE', `/api/webhooks/v2/${hook.id}`);
  });

  for (const groupFirst of [false, true]) {
    it(`a watched type changed ${groupFirst ? 'before' : 'after'} a long run of an unwatched one still gets its delivery`, async () => {
      rx.bodies.length = 0;
      const hook = (await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: G })).body;
      const group = randomUUID();
      const run = creates(Array.from({ length: LONG }, (_, i) => item(i, null))).commands;
      const groupCreate = { command: 'svc.entity/create', args: { type: G, entity: { 'svc/id': group } } };
      const [r] = await h.commands([
        {
          command: 'svc.command/batch',
          args: { commands: groupFirst ? [groupCreate, ...run] : [...run, groupCreate] },
        },
      ]);
      expect(r.success).toBe(true);
      const [{ body: delivery }] = await rx.until(1);
      expect(delivery.effects).toEqual([
        { effect: 'svc.entity/create', id: group, type: G, values: r.result[groupFirst ? 0 : LONG].result },
      ]);
      await h.request('DELETE', `/api/webhooks/v2/${hook.id}`);
    });
  }

  it('a created-trigger automation on the type gets one run per entity of a long run', async () => {
    const res = await h.request('POST', '/api/automations', {
      name: 'Each new item',
      trigger: 'created',
      type: T,
      action: {
        kind: 'app',
        url: 'http://127.0.0.1:9',
        action: 'send-message',
        args: { text: 'x' },
        account: { webhookUrl: 'ftp://nope' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const out = await h.run(
      'svc.command/batch',
      creates(Array.from({ length: LONG }, (_, i) => item(i, null))),
    );
    const runs = (await h.request('GET', `/api/automations/runs?automation=${res.body.id}`)).body as Array<{
      entityIds: string[];
    }>;
    expect(runs.flatMap((run) => run.entityIds).sort()).toEqual(out.map((e: any) => e['svc/id']).sort());
    await h.request('DELETE', `/api/automations/${res.body.id}`);
  });
});
