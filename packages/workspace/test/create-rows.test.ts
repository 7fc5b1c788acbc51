import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { createRowsCommand } from '../src/entities/create-rows.js';
import { COPY_MIN_ROWS } from '../src/entities/entity-store.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

// The create of rows (entities/create-rows.ts), the form the app host writes a page in: the same
// rows, checks and errors as the same entities sent one create command each, on a short run (one
// INSERT) and a long one (COPY where the engine takes it); and a JSON body cannot ask for it.

const T = 'rows/item';
const LONG = COPY_MIN_ROWS + 10;
const SHORT = 5;
const NAMES = ['rows/name', 'rows/n', 'rows/d', 'rows/at', 'rows/status'];

const values = (i: number): unknown[] => [
  ['tab\there', 'new\nline', 'ünï ✓'][i % 3],
  i % 4 === 0 ? null : i * 3,
  `${i}.5`,
  `2026-03-01T10:${String(i % 60).padStart(2, '0')}:00+02:00`,
  i % 2 === 0 ? 'given' : null,
];
const entity = (id: string, i: number) =>
  Object.fromEntries([['svc/id', id], ...NAMES.map((n, k) => [n, values(i)[k]])]);

describeEachDatabase('a create of rows', (target) => {
  const h = useWorkspace(target);
  const select = ['svc/id', 'svc/public-id', ...NAMES];
  const stored = async (ids: string[]) =>
    h.run('svc.entity/query', {
      query: {
        'q/from': T,
        'q/select': select,
        'q/where': ['q/in', ['svc/id'], '$ids'],
        'q/limit': 'q/no-limit',
      },
      params: { $ids: ids },
    });
  const batch = async (commands: unknown[]) => {
    const [result] = await h.ws.execute([{ command: 'svc.command/batch', args: { commands } }]);
    return result as { success: boolean; result?: unknown; error?: { message: string } };
  };

  beforeAll(async () => {
    await h.run(
      'schema.type/create',
      typeArgs(T, [
        ['rows/n', 'svc/int'],
        ['rows/d', 'svc/decimal'],
        ['rows/at', 'svc/date-time'],
        ['rows/status', 'svc/text', { 'svc/default-value': 'new' }],
      ]),
    );
  });

  for (const n of [SHORT, LONG]) {
    it(`stores ${n} rows as the same entities one create each would (${n === LONG ? 'COPY' : 'INSERT'})`, async () => {
      const ids = Array.from({ length: n }, () => randomUUID());
      const twins = Array.from({ length: n }, () => randomUUID());
      const rows = Array.from({ length: n }, (_, i) => values(i));
      const made = await batch([
        createRowsCommand(T, { names: NAMES, ids, rows }),
        {
          command: 'svc.entity/query',
          args: { query: { 'q/from': T, 'q/select': ['svc/id'], 'q/limit': 1 } },
        },
      ]);
      expect(made.success).toBe(true);
      const one = await batch(
        twins.map((id, i) => ({ command: 'svc.entity/create', args: { type: T, entity: entity(id, i) } })),
      );
      expect(one.success).toBe(true);
      const got = await stored(ids);
      const want = await stored(twins);
      const strip = (r: Record<string, unknown>) => {
        const { 'svc/id': _id, 'svc/public-id': _p, ...rest } = r;
        return rest;
      };
      expect(got.map((r: Record<string, unknown>) => r['svc/id'])).toEqual(ids);
      expect(got.map(strip)).toEqual(want.map(strip));
      // Public ids in row order; a value not given keeps its default.
      const publicIds = got.map((r: Record<string, unknown>) => Number(r['svc/public-id']));
      expect(publicIds).toEqual(publicIds.map((_: number, i: number) => (publicIds[0] as number) + i));
      expect(got[1]['rows/status']).toBe(null);
      expect(got[0]).toMatchObject({
        'rows/n': null,
        'rows/d': '0.5',
        'rows/at': '2026-03-01T08:00:00.000Z',
      });
    });

    it(`names the command and the row of a value that does not fit, and writes none (${n} rows)`, async () => {
      const ids = Array.from({ length: n }, () => randomUUID());
      const rows = Array.from({ length: n }, (_, i) =>
        i === n - 2 ? ['x', 'not a number', '1', null, null] : values(i),
      );
      const failed = await batch([
        {
          command: 'svc.entity/query',
          args: { query: { 'q/from': T, 'q/select': ['svc/id'], 'q/limit': 1 } },
        },
        createRowsCommand(T, { names: NAMES, ids, rows }),
      ]);
      expect(failed.success).toBe(false);
      expect(failed.error?.message).toBe(
        `commands[1] (svc.entity/create) row ${n - 2}: Field rows/n (svc/int) cannot hold "not a number"`,
      );
      expect(await stored(ids)).toEqual([]);
    });
  }

  it('follows creates of entities of the same type without being taken into their run', async () => {
    const first = randomUUID();
    const ids = [randomUUID(), randomUUID()];
    const made = await batch([
      { command: 'svc.entity/create', args: { type: T, entity: entity(first, 0) } },
      createRowsCommand(T, { names: NAMES, ids, rows: [values(1), values(2)] }),
    ]);
    expect(made.success).toBe(true);
    const got = await stored([first, ...ids]);
    expect(got.map((r: Record<string, unknown>) => r['svc/id'])).toEqual([first, ...ids]);
  });

  it('refuses a row id that is not a uuid and a name the type lacks, as an entity create does', async () => {
    const bad = await batch([createRowsCommand(T, { names: NAMES, ids: ['nope'], rows: [values(0)] })]);
    expect(bad.error?.message).toBe('commands[0] (svc.entity/create) row 0: svc/id must be a uuid');
    const unknown = await batch([
      createRowsCommand(T, { names: ['rows/nope'], ids: [randomUUID()], rows: [[1]] }),
    ]);
    expect(unknown.success).toBe(false);
    expect(unknown.error?.message).toMatch(/^commands\[0\] \(svc\.entity\/create\) row 0: .*rows\/nope/);
  });

  it('is out of reach of a JSON body: its command arrives as a create without an entity', async () => {
    const sent = JSON.parse(
      JSON.stringify({
        command: 'svc.command/batch',
        args: { commands: [createRowsCommand(T, { names: NAMES, ids: [randomUUID()], rows: [values(0)] })] },
      }),
    );
    const [result] = await h.commands([sent]);
    expect(result.success).toBe(false);
    expect(result.error.message).toBe(
      'commands[0] (svc.entity/create): entity must be an object of field values',
    );
  });
});
