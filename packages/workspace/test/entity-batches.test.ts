import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

// The service's commands on many entities of one type: svc.entity.batch/create, /delete and
// /create-or-update (the upsert of the service's API docs), over HTTP as its clients send them.

const T = 'eb/item';

describeEachDatabase('entity batch commands', (target) => {
  const h = useWorkspace(target);

  beforeAll(async () => {
    await h.run(
      'schema.type/create',
      typeArgs(T, [
        ['eb/code', 'svc/text'],
        ['eb/n', 'svc/int'],
      ]),
    );
  });

  const all = async () =>
    (
      await h.run('svc.entity/query', {
        query: {
          'q/from': T,
          'q/select': ['svc/id', 'eb/name', 'eb/code', 'eb/n'],
          'q/order-by': [[['svc/creation-date'], 'q/asc']],
          'q/limit': 'q/no-limit',
        },
      })
    ).map((r: any) => `${r['eb/code'] ?? '-'}:${r['eb/name']}:${r['eb/n'] ?? '-'}`);

  it('batch/create creates them in order and answers them; batch/delete deletes them', async () => {
    const ids = [randomUUID(), randomUUID()];
    const created = await h.run('svc.entity.batch/create', {
      type: T,
      entities: [
        { 'svc/id': ids[0], 'eb/name': 'one', 'eb/code': 'c1' },
        { 'svc/id': ids[1], 'eb/name': 'two' },
      ],
    });
    expect(created.map((e: any) => [e['svc/id'], e['eb/name']])).toEqual([
      [ids[0], 'one'],
      [ids[1], 'two'],
    ]);
    expect(await all()).toEqual(['c1:one:-', '-:two:-']);
    // An id that is not there fails the batch, unless the caller says not to mind.
    const missing = await h.attempt('svc.entity.batch/delete', {
      type: T,
      entities: [{ 'svc/id': ids[0] }, { 'svc/id': randomUUID() }],
    });
    expect(missing.success).toBe(false);
    expect(await all()).toEqual(['c1:one:-', '-:two:-']);
    const deleted = await h.run('svc.entity.batch/delete', {
      type: T,
      entities: [{ 'svc/id': ids[0] }, { 'svc/id': randomUUID() }, { 'svc/id': ids[1] }],
      opts: { 'fail-if-not-found?': false },
    });
    expect(deleted).toBe('ok');
    expect(await all()).toEqual([]);
  });

  it('batch/create-or-update creates, skips or updates by the conflict field, as the service documents', async () => {
    await h.run('svc.entity.batch/create', {
      type: T,
      entities: [
        { 'eb/name': 'old a', 'eb/code': 'A', 'eb/n': 1 },
        { 'eb/name': 'newer a', 'eb/code': 'A', 'eb/n': 2 },
        { 'eb/name': 'b', 'eb/code': 'B', 'eb/n': 3 },
      ],
    });
    const [, newerA] = await h.run('svc.entity/query', {
      query: {
        'q/from': T,
        'q/select': ['svc/id', 'svc/public-id'],
        'q/order-by': [[['svc/creation-date'], 'q/asc']],
        'q/limit': 3,
      },
    });
    const batch = (action: string) => ({
      type: T,
      'conflict-field': 'eb/code',
      'conflict-action': action,
      entities: [
        { 'svc/id': randomUUID(), 'eb/name': 'a again', 'eb/code': 'A', 'eb/n': 10 },
        { 'svc/id': randomUUID(), 'eb/name': 'c', 'eb/code': 'C' },
        { 'svc/id': randomUUID(), 'eb/name': 'c twice', 'eb/code': 'C' },
        { 'svc/id': randomUUID(), 'eb/name': 'no code' },
        { 'svc/id': randomUUID(), 'eb/name': 'lower b', 'eb/code': 'b' },
      ],
    });

    const skipped = await h.run('svc.entity.batch/create-or-update', batch('skip-create'));
    expect(skipped.map((r: any) => r.action)).toEqual([
      'skip-create',
      'create',
      'prefer-duplicate-found-in-the-batch',
      'create',
      'create',
    ]);
    // The latest of the two A's is the duplicate; the first C stands for the batch's C's.
    expect(skipped[0].duplicate['svc/id']).toBe(newerA['svc/id']);
    expect(skipped[0].entity['eb/name']).toBe('a again');
    expect(skipped[1].created['eb/name']).toBe('c');
    expect(skipped[2].duplicate['eb/name']).toBe('c');
    expect(await all()).toEqual(['A:old a:1', 'A:newer a:2', 'B:b:3', 'C:c:-', '-:no code:-', 'b:lower b:-']);

    const updated = await h.run('svc.entity.batch/create-or-update', batch('update-latest'));
    expect(updated.map((r: any) => r.action)).toEqual([
      'update-latest',
      'prefer-duplicate-found-in-the-batch',
      'update-latest',
      'create',
      'update-latest',
    ]);
    // The duplicate keeps its id and public id; the last C stands for the batch's C's.
    expect(updated[0].updated).toMatchObject({
      'svc/id': newerA['svc/id'],
      'svc/public-id': newerA['svc/public-id'],
      'eb/name': 'a again',
      'eb/n': 10,
    });
    expect(updated[1].duplicate['eb/name']).toBe('c twice');
    expect(updated[2].updated['eb/name']).toBe('c twice');
    expect(await all()).toEqual([
      'A:old a:1',
      'A:a again:10',
      'B:b:3',
      'C:c twice:-',
      '-:no code:-',
      'b:lower b:-',
      '-:no code:-',
    ]);

    for (const [args, code] of [
      [{ ...batch('skip-create'), 'conflict-field': 'eb/nope' }, 'unknown-field'],
      [{ ...batch('skip-create'), 'conflict-field': 'svc/creation-date' }, 'invalid-args'],
      [{ ...batch('merge') }, 'invalid-args'],
      [{ ...batch('skip-create'), entities: 'x' }, 'invalid-args'],
    ] as const) {
      const r = await h.attempt('svc.entity.batch/create-or-update', args);
      expect(r.error?.code, JSON.stringify(args)).toBe(code);
    }
  });
});
