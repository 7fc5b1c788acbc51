// Reverse-field names and raw fields of relations: relations sharing a targetName get names apart,
// a reverse field made by an earlier sync keeps its name whatever the schema's order now, and the
// raw fields never change the names other fields had before they existed.
import type { SchemaResponse } from '@weft/core/protocol';
import { expect, it } from 'vitest';
import { mapSchema, relationIdOf } from './schema-mapping.js';

const SOURCE = '00000000-0000-0000-0000-000000000001';
const rel = (name: string) => ({
  type: 'text' as const,
  name: `${name} Id`,
  relation: {
    cardinality: 'many-to-one' as const,
    name,
    targetName: 'Tasks',
    targetType: 'user',
    targetFieldId: 'id',
  },
});
const user = { id: { type: 'id' as const, name: 'Id' }, name: { type: 'text' as const, name: 'Name' } };

const partnersOf = (schema: SchemaResponse, known = new Map<string, string>()) =>
  mapSchema('todo', SOURCE, schema, ['item', 'user'], known)[0]!.fields.flatMap((f) =>
    f.kind === 'relation' ? [[f.appId, f.partnerName, f.rawName]] : [],
  );

it('names reverse fields apart however many relations share a targetName', () => {
  const schema = {
    item: {
      id: { type: 'id', name: 'Id' },
      owner: rel('Owner'),
      added: rel('Added By'),
      assigned: rel('Assigned By'),
    },
    user,
  } as SchemaResponse;
  expect(partnersOf(schema)).toEqual([
    ['owner', 'todo/tasks', 'todo/owner-raw'],
    ['added', 'todo/tasks-of-item', 'todo/added-raw'],
    ['assigned', 'todo/tasks-of-item-2', 'todo/assigned-raw'],
  ]);
});

it('keeps the reverse names made before, whatever the order the schema now has', () => {
  const known = new Map([
    [relationIdOf(SOURCE, 'item', 'owner'), 'todo/tasks'],
    [relationIdOf(SOURCE, 'item', 'added'), 'todo/tasks-of-item'],
  ]);
  // A new relation comes first now: it must not take a name the others hold.
  const schema = {
    item: {
      id: { type: 'id', name: 'Id' },
      assigned: rel('Assigned By'),
      added: rel('Added By'),
      owner: rel('Owner'),
    },
    user,
  } as SchemaResponse;
  expect(partnersOf(schema, known)).toEqual([
    ['assigned', 'todo/tasks-of-item-2', 'todo/assigned-raw'],
    ['added', 'todo/tasks-of-item', 'todo/added-raw'],
    ['owner', 'todo/tasks', 'todo/owner-raw'],
  ]);
});

it('names other fields as before the raw fields existed', () => {
  const schema = {
    item: {
      id: { type: 'id', name: 'Id' },
      owner: rel('Owner'),
      due_date: { type: 'date', name: 'Due' },
      'due-date': { type: 'date', name: 'Due too' },
      'owner-raw': { type: 'text', name: 'An app field of that name' },
    },
    user,
  } as SchemaResponse;
  const names = mapSchema('todo', SOURCE, schema, ['item', 'user'])[0]!.fields.map((f) => f.name);
  // `due-date-4`: numbered by the names before it (name, id, owner, due-date), as weft always numbered them.
  expect(names).toEqual(['todo/id', 'todo/owner', 'todo/due-date', 'todo/due-date-4', 'todo/owner-raw']);
  const owner = mapSchema('todo', SOURCE, schema, ['item', 'user'])[0]!.fields.find(
    (f) => f.appId === 'owner',
  );
  expect(owner).toMatchObject({ rawName: 'todo/owner-raw-2' });
});
