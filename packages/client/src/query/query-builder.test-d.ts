// Compile-time checks: with generated types, misspelled types and fields fail `tsc`.
import { describe, expectTypeOf, test } from 'vitest';
import type { Tracker } from '../../test/fixtures/tracker-types.js';
import { createWorkspaceClient } from '../client.js';
import { and, eq, gte, many, start } from '../index.js';

const client = createWorkspaceClient<Tracker>({ url: 'http://127.0.0.1:1', token: 'type-test' });

describe('typed queries', () => {
  test('short and full names, related fields, and the rows they produce', () => {
    const q = client
      .query('Tracker/Task')
      .select('Name', 'Tracker/Estimate', { Project: ['Name'] }, { State: ['enum/name'] })
      .where(eq('State.enum/name', 'Done'))
      .orderBy('svc/creation-date', 'desc')
      .limit(50);
    expectTypeOf(q.all()).resolves.toEqualTypeOf<
      {
        Name: string | null;
        'Tracker/Estimate': number | null;
        Project: { Name: string | null; 'svc/id': string } | null;
        State: { 'enum/name': string | null; 'svc/id': string } | null;
        'svc/id': string;
      }[]
    >();
  });

  test('collections and date-range starts', () => {
    const q = client
      .query('Tracker/Project')
      .select('Name', { Tasks: many('Name', 'Estimate') })
      .where(and(gte('Budget', '10'), eq('Name', 'x')));
    expectTypeOf(q.first()).resolves.toEqualTypeOf<
      | {
          Name: string | null;
          Tasks: { Name: string | null; Estimate: number | null; 'svc/id': string }[];
          'svc/id': string;
        }
      | undefined
    >();
    client.query('Tracker/Task').where(gte(start('Due'), '2026-01-01'));
  });

  test('misspelled names do not compile', () => {
    // @ts-expect-error: no such type
    client.query('Tracker/Tsk');
    // @ts-expect-error: no such field
    client.query('Tracker/Task').select('Nmae');
    // @ts-expect-error: no such field on the related type
    client.query('Tracker/Task').select({ Project: ['Nmae'] });
    // @ts-expect-error: no such relation
    client.query('Tracker/Task').select({ Projct: ['Name'] });
    // @ts-expect-error: no such filter path
    client.query('Tracker/Task').where(eq('State.enum/nme', 'Done'));
    // @ts-expect-error: ordering by a field that does not exist
    client.query('Tracker/Task').orderBy('Created');
    // @ts-expect-error: a collection is not a to-one relation
    client.query('Tracker/Project').select({ Tasks: ['Name'] });
  });

  test('entity payloads', () => {
    void client.entities.create('Tracker/Task', {
      'Tracker/Name': 'Write the client',
      'Tracker/Estimate': 3,
      'Tracker/Project': { 'svc/id': 'p1' },
    });
    // @ts-expect-error: misspelled field in a payload
    void client.entities.create('Tracker/Task', { 'Tracker/Nmae': 'x' });
    // @ts-expect-error: wrong value type
    void client.entities.create('Tracker/Task', { 'Tracker/Estimate': 'three' });
    // @ts-expect-error: read-only fields cannot be written
    void client.entities.create('Tracker/Task', { 'svc/public-id': '7' });
    // @ts-expect-error: only collection fields take items
    void client.entities.addItems('Tracker/Project', 'p1', 'Tracker/Name', ['t1']);
    void client.entities.addItems('Tracker/Project', 'p1', 'Tracker/Tasks', ['t1']);
  });

  test('explicit batches resolve slots to results', async () => {
    const out = await client.batch((b) => ({
      task: b.entities.create('Tracker/Task', { 'Tracker/Name': 'a' }),
      gone: b.entities.delete('Tracker/Task', 'x'),
    }));
    expectTypeOf(out.task['Tracker/Name']).toEqualTypeOf<string | null>();
    expectTypeOf(out.gone).toEqualTypeOf<'ok'>();
  });
});
