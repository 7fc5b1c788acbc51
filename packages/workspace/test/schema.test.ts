import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDatabase, type Harness, typeArgs, useWorkspace } from './support/databases.js';

let n = 0;
const fresh = (prefix: string) => `${prefix}${++n}`;

async function schemaType(h: Harness, name: string) {
  const schema = await h.run('svc.schema/query');
  return schema['svc/types'].find((t: any) => t['svc/name'] === name);
}

async function makePair(h: Harness) {
  const app = fresh('s');
  const holder = `${app}/project`;
  const item = `${app}/task`;
  const relation = randomUUID();
  await h.run('schema.type/create', typeArgs(holder));
  await h.run('schema.type/create', typeArgs(item));
  await h.run('schema.field/create', {
    'svc/holder-type': item,
    'svc/name': `${app}/project`,
    'svc/type': holder,
    'svc/meta': { 'svc/relation': relation },
  });
  await h.run('schema.field/create', {
    'svc/holder-type': holder,
    'svc/name': `${app}/tasks`,
    'svc/type': item,
    'svc/meta': { 'svc/relation': relation, 'svc/collection?': true },
  });
  return { app, holder, item };
}

describeEachDatabase('schema commands', (target) => {
  const h = useWorkspace(target);

  it('svc.schema/query returns the Schema object, with descriptions on request', async () => {
    const schema = await h.run('svc.schema/query');
    expect(schema['svc/id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(schema['svc/meta']).toMatchObject({
      'svc/version': expect.any(String),
      'svc/rel-version': expect.any(String),
    });
    expect(schema['svc/types'].map((t: any) => t['svc/name'])).toContain('svc/user');
    expect(schema['svc/types'][0]).not.toHaveProperty('svc/description');
    const described = await h.run('svc.schema/query', { 'with-description?': true });
    expect(described['svc/types'][0]).toHaveProperty('svc/description');
  });

  it('schema.type/create makes a type with the five primitive fields, meta defaults and a given id', async () => {
    const id = randomUUID();
    const name = `${fresh('s')}/thing`;
    await h.run('schema.type/create', { ...typeArgs(name, [['x/size', 'svc/int']]), 'svc/id': id });
    const t = await schemaType(h, name);
    expect(t['svc/id']).toBe(id);
    expect(t['svc/meta']).toMatchObject({ 'svc/domain?': false, 'ui/color': '#000000' });
    const fields = Object.fromEntries(t['svc/fields'].map((f: any) => [f['svc/name'], f]));
    expect(fields['svc/id']['svc/type']).toBe('svc/uuid');
    expect(fields['svc/id']['svc/meta']).toMatchObject({
      'svc/id?': true,
      'svc/readonly?': true,
      'svc/secured?': false,
    });
    expect(fields['svc/creation-date']['svc/meta']['svc/default-value']).toBe('$now');
    expect(fields['svc/modification-date']['svc/meta']['svc/required?']).toBe(true);
    expect(fields['x/size']['svc/type']).toBe('svc/int');
    const again = await h.attempt('schema.type/create', typeArgs(name));
    expect(again).toMatchObject({ success: false, error: { code: 'conflict' } });
  });

  it('schema.type/create makes every field given in one schema change, in the order given', async () => {
    const app = fresh('s');
    const target = `${app}/target`;
    await h.run('schema.type/create', typeArgs(target));
    const before = (await h.run('svc.schema/query'))['svc/meta']['svc/version'];
    const name = `${app}/many`;
    const id = randomUUID();
    await h.run(
      'schema.type/create',
      typeArgs(name, [
        [`${app}/a`, 'svc/int'],
        [`${app}/b`, 'svc/date-time', { 'ui/label': 'B' }],
        [`${app}/c`, 'svc/bool'],
        [`${app}/d`, 'svc/json-value'],
        [`${app}/link`, target],
      ]),
    );
    const after = (await h.run('svc.schema/query'))['svc/meta']['svc/version'];
    // The type with its primitive fields is one change; the relation, which reads the schema, one more.
    expect(Number(after) - Number(before)).toBe(2);
    const t = await schemaType(h, name);
    expect(t['svc/fields'].map((f: any) => f['svc/name'])).toEqual([
      'svc/id',
      'svc/public-id',
      'svc/creation-date',
      'svc/modification-date',
      'svc/created-by',
      `${app}/name`,
      `${app}/a`,
      `${app}/b`,
      `${app}/c`,
      `${app}/d`,
      `${app}/link`,
    ]);
    expect(t['svc/fields'][7]['svc/meta']).toMatchObject({ 'ui/label': 'B' });
    await h.run('svc.entity/create', { type: target, entity: { 'svc/id': id } });
    const entity = { [`${app}/a`]: 3, [`${app}/b`]: '2026-11-22T10:00:00.000Z', [`${app}/c`]: true };
    const created = await h.run('svc.entity/create', {
      type: name,
      entity: { ...entity, [`${app}/d`]: { x: [1] }, [`${app}/link`]: { 'svc/id': id } },
    });
    expect(created).toMatchObject({ ...entity, [`${app}/d`]: { x: [1] } });
  });

  it('schema.type/create refuses a field given twice, or an id in use, and makes nothing', async () => {
    const app = fresh('s');
    const twice = await h.attempt(
      'schema.type/create',
      typeArgs(`${app}/twice`, [
        [`${app}/a`, 'svc/int'],
        [`${app}/a`, 'svc/text'],
      ]),
    );
    expect(twice).toMatchObject({ success: false, error: { code: 'conflict' } });
    expect(twice.error.message).toContain(`already has a field ${app}/a`);
    const fieldId = randomUUID();
    const sameId = await h.attempt('schema.type/create', {
      ...typeArgs(`${app}/ids`),
      'svc/fields': [
        { 'svc/name': `${app}/x`, 'svc/type': 'svc/int', 'svc/id': fieldId },
        { 'svc/name': `${app}/y`, 'svc/type': 'svc/int', 'svc/id': fieldId.toUpperCase() },
      ],
    });
    expect(sameId).toMatchObject({ success: false, error: { code: 'conflict' } });
    expect(sameId.error.message).toContain('already exists');
    const badName = await h.attempt('schema.type/create', typeArgs(`${app}/bad`, [['nope', 'svc/int']]));
    expect(badName).toMatchObject({ success: false, error: { code: 'invalid-args' } });
    for (const made of ['twice', 'ids', 'bad']) expect(await schemaType(h, `${app}/${made}`)).toBeUndefined();
  });

  it.each([
    ['svc/int', 3],
    ['svc/decimal', '2.50'],
    ['svc/bool', true],
    ['svc/text', 'hi'],
    ['svc/email', 'a@b.c'],
    ['svc/emoji', '🙂'],
    ['svc/date', '2026-11-22'],
    ['svc/date-time', '2026-11-22T10:00:00.000Z'],
    ['svc/date-range', { start: '2026-01-01', end: '2026-01-31' }],
    ['svc/date-time-range', { start: '2026-01-01T00:00:00.000Z', end: '2026-01-02T00:00:00.000Z' }],
    [
      'svc/location',
      { longitude: 2.35, latitude: 48.85, fullAddress: 'Paris', addressParts: { city: 'Paris' } },
    ],
    ['svc/uuid', '6f1f0b8e-1c3b-4a3b-9a3b-1c3b4a3b9a3b'],
    ['svc/rank', 7],
    ['svc/json-value', { a: [1, 'b'] }],
  ])('schema.field/create adds a %s field that stores its value shape', async (type, value) => {
    const name = `${fresh('s')}/v`;
    await h.run('schema.type/create', typeArgs(name));
    await h.run('schema.field/create', { 'svc/holder-type': name, 'svc/name': 'v/f', 'svc/type': type });
    const created = await h.run('svc.entity/create', { type: name, entity: { 'v/f': value } });
    expect(created['v/f']).toEqual(value);
  });

  it('schema.type/rename and schema.field/rename keep data', async () => {
    const app = fresh('s');
    await h.run('schema.type/create', typeArgs(`${app}/a`, [[`${app}/n`, 'svc/int']]));
    await h.run('svc.entity/create', { type: `${app}/a`, entity: { [`${app}/n`]: 5 } });
    await h.run('schema.type/rename', { 'from-name': `${app}/a`, 'to-name': `${app}/b` });
    await h.run('schema.field/rename', {
      'holder-type': `${app}/b`,
      'from-name': `${app}/n`,
      'to-name': `${app}/m`,
    });
    const rows = await h.run('svc.entity/query', {
      query: { 'q/from': `${app}/b`, 'q/select': [`${app}/m`] },
    });
    expect(rows).toEqual([{ [`${app}/m`]: 5 }]);
    expect(
      await h.attempt('svc.entity/query', { query: { 'q/from': `${app}/a`, 'q/select': [] } }),
    ).toMatchObject({
      success: false,
      error: { code: 'unknown-type' },
    });
  });

  // The spec's type deletion table: entities exist? × delete-entities?, related fields exist? × delete-related-fields?
  it.each([
    { entities: false, related: false, flags: {}, ok: true },
    {
      entities: false,
      related: false,
      flags: { 'delete-entities?': true, 'delete-related-fields?': true },
      ok: true,
    },
    { entities: true, related: false, flags: {}, ok: false },
    { entities: true, related: false, flags: { 'delete-entities?': true }, ok: true },
    { entities: false, related: true, flags: {}, ok: false },
    { entities: false, related: true, flags: { 'delete-related-fields?': true }, ok: true },
    { entities: true, related: true, flags: { 'delete-entities?': true }, ok: false },
    {
      entities: true,
      related: true,
      flags: { 'delete-entities?': true, 'delete-related-fields?': true },
      ok: true,
    },
  ])('schema.type/delete: entities $entities, related fields $related, $flags → deleted: $ok', async (c) => {
    const app = fresh('d');
    const doomed = `${app}/doomed`;
    const other = `${app}/other`;
    await h.run('schema.type/create', typeArgs(doomed));
    await h.run('schema.type/create', typeArgs(other));
    if (c.related) {
      await h.run('schema.field/create', {
        'svc/holder-type': other,
        'svc/name': `${app}/link`,
        'svc/type': doomed,
      });
    }
    if (c.entities) await h.run('svc.entity/create', { type: doomed, entity: { [`${app}/name`]: 'x' } });
    const res = await h.attempt('schema.type/delete', { name: doomed, ...c.flags });
    expect(res.success).toBe(c.ok);
    if (!c.ok) expect(res.error.code).toBe('not-empty');
    expect(Boolean(await schemaType(h, doomed))).toBe(!c.ok);
    const otherType = await schemaType(h, other);
    const hasLink = otherType['svc/fields'].some((f: any) => f['svc/name'] === `${app}/link`);
    expect(hasLink).toBe(c.related && !c.ok);
  });

  // The spec's field deletion table.
  it.each([
    { kind: 'primitive', filled: false, deleteValues: false, ok: true },
    { kind: 'primitive', filled: false, deleteValues: true, ok: true },
    { kind: 'primitive', filled: true, deleteValues: false, ok: false },
    { kind: 'primitive', filled: true, deleteValues: true, ok: true },
    { kind: 'entity', filled: false, deleteValues: false, ok: true },
    { kind: 'entity', filled: true, deleteValues: false, ok: false },
    { kind: 'entity', filled: true, deleteValues: true, ok: true },
    { kind: 'collection', filled: false, deleteValues: false, ok: true },
    { kind: 'collection', filled: true, deleteValues: false, ok: false },
    { kind: 'collection', filled: true, deleteValues: true, ok: true },
  ])(
    'schema.field/delete: $kind field, values $filled, delete-values? $deleteValues → deleted: $ok',
    async (c) => {
      const { app, holder, item } = await makePair(h);
      await h.run('schema.field/create', {
        'svc/holder-type': item,
        'svc/name': `${app}/n`,
        'svc/type': 'svc/int',
      });
      const p = await h.run('svc.entity/create', { type: holder, entity: {} });
      const t = await h.run('svc.entity/create', {
        type: item,
        entity: c.filled && c.kind === 'primitive' ? { [`${app}/n`]: 1 } : {},
      });
      if (c.filled && c.kind !== 'primitive') {
        await h.run('svc.entity/add-collection-items', {
          type: holder,
          field: `${app}/tasks`,
          entity: { 'svc/id': p['svc/id'] },
          items: [{ 'svc/id': t['svc/id'] }],
        });
      }
      const [holderType, field] =
        c.kind === 'primitive'
          ? [item, `${app}/n`]
          : c.kind === 'entity'
            ? [item, `${app}/project`]
            : [holder, `${app}/tasks`];
      const res = await h.attempt('schema.field/delete', {
        'holder-type': holderType,
        name: field,
        'delete-values?': c.deleteValues,
      });
      expect(res.success).toBe(c.ok);
      const after = await schemaType(h, holderType);
      expect(after['svc/fields'].some((f: any) => f['svc/name'] === field)).toBe(!c.ok);
      // Related entities are kept either way.
      const tasks = await h.run('svc.entity/query', { query: { 'q/from': item, 'q/select': ['svc/id'] } });
      expect(tasks).toHaveLength(1);
    },
  );

  it('a relation is a pair of fields sharing svc/relation; links read from both sides', async () => {
    const { app, holder, item } = await makePair(h);
    const p = await h.run('svc.entity/create', { type: holder, entity: { [`${app}/name`]: 'P' } });
    const t = await h.run('svc.entity/create', {
      type: item,
      entity: { [`${app}/project`]: { 'svc/id': p['svc/id'] } },
    });
    expect(t[`${app}/project`]).toEqual({ 'svc/id': p['svc/id'] });
    const rows = await h.run('svc.entity/query', {
      query: {
        'q/from': holder,
        'q/select': [{ [`${app}/tasks`]: { 'q/select': ['svc/id'], 'q/limit': 'q/no-limit' } }],
      },
    });
    expect(rows).toEqual([{ [`${app}/tasks`]: [{ 'svc/id': t['svc/id'] }] }]);
    const fields = (await schemaType(h, holder))['svc/fields'];
    const tasks = fields.find((f: any) => f['svc/name'] === `${app}/tasks`);
    expect(tasks['svc/type']).toBe(item);
    expect(tasks['svc/meta']['svc/collection?']).toBe(true);
  });

  it('deleting both fields of a relation in one batch deletes it once, as a client tearing down does', async () => {
    const { app, holder, item } = await makePair(h);
    const both = await h.attempt('svc.schema/batch', {
      commands: [
        { command: 'schema.field/delete', args: { 'holder-type': holder, name: `${app}/tasks` } },
        { command: 'schema.field/delete', args: { 'holder-type': item, name: `${app}/project` } },
      ],
    });
    expect(both).toMatchObject({ success: true, result: 'ok' });
    const names = async (t: string) => (await schemaType(h, t))['svc/fields'].map((f: any) => f['svc/name']);
    expect(await names(holder)).not.toContain(`${app}/tasks`);
    expect(await names(item)).not.toContain(`${app}/project`);
    // Outside that case an unknown field stays unknown, in the same batch too.
    const again = await h.attempt('svc.schema/batch', {
      commands: [{ command: 'schema.field/delete', args: { 'holder-type': item, name: `${app}/project` } }],
    });
    expect(again.error?.code).toBe('unknown-field');
  });

  it('a collection created before its to-one partner keeps its links', async () => {
    const app = fresh('c');
    await h.run('schema.type/create', typeArgs(`${app}/p`));
    await h.run('schema.type/create', typeArgs(`${app}/t`));
    const relation = randomUUID();
    await h.run('schema.field/create', {
      'svc/holder-type': `${app}/p`,
      'svc/name': `${app}/ts`,
      'svc/type': `${app}/t`,
      'svc/meta': { 'svc/relation': relation, 'svc/collection?': true },
    });
    const p = await h.run('svc.entity/create', { type: `${app}/p`, entity: {} });
    const t = await h.run('svc.entity/create', { type: `${app}/t`, entity: {} });
    await h.run('svc.entity/add-collection-items', {
      type: `${app}/p`,
      field: `${app}/ts`,
      entity: { 'svc/id': p['svc/id'] },
      items: [{ 'svc/id': t['svc/id'] }],
    });
    await h.run('schema.field/create', {
      'svc/holder-type': `${app}/t`,
      'svc/name': `${app}/p`,
      'svc/type': `${app}/p`,
      'svc/meta': { 'svc/relation': relation },
    });
    const rows = await h.run('svc.entity/query', {
      query: { 'q/from': `${app}/t`, 'q/select': [`${app}/p`] },
    });
    expect(rows).toEqual([{ [`${app}/p`]: { 'svc/id': p['svc/id'] } }]);
  });

  it('single-select: the four-step sequence, options as entities, default and required', async () => {
    const app = fresh('e');
    const holder = `${app}/task`;
    const field = `${app}/status`;
    const enumType = `${field}_${holder}`;
    await h.run('schema.type/create', typeArgs(holder));
    await h.run('schema.enum/create', { 'svc/name': enumType });
    await h.run('schema.field/create', {
      'svc/holder-type': holder,
      'svc/name': field,
      'svc/type': enumType,
    });
    const ids = [randomUUID(), randomUUID()];
    const options = [];
    for (const [i, name] of ['Open', 'Done'].entries()) {
      options.push(
        await h.run('svc.entity/create', {
          type: enumType,
          entity: { 'enum/name': name, 'svc/id': ids[i], 'svc/rank': i },
        }),
      );
    }
    expect(options[0]).toMatchObject({
      'svc/id': ids[0],
      'svc/public-id': '1',
      'enum/name': 'Open',
      'svc/rank': 0,
    });
    expect(options[1]['svc/public-id']).toBe('2');
    await h.run('schema.field/set-meta', {
      'holder-type': holder,
      name: field,
      key: 'svc/default-value',
      value: { 'svc/id': ids[0] },
    });
    await h.run('schema.field/set-meta', {
      'holder-type': holder,
      name: field,
      key: 'svc/required?',
      value: true,
    });
    const task = await h.run('svc.entity/create', { type: holder, entity: {} });
    expect(task[field]).toEqual({ 'svc/id': ids[0] });
    const cleared = await h.attempt('svc.entity/update', {
      type: holder,
      entity: { 'svc/id': task['svc/id'], [field]: null },
    });
    expect(cleared).toMatchObject({ success: false, error: { code: 'invalid-value' } });
    const missing = await h.attempt('svc.entity/create', {
      type: holder,
      entity: { [field]: { 'svc/id': randomUUID() } },
    });
    expect(missing).toMatchObject({ success: false, error: { code: 'invalid-value' } });
    const fieldMeta = (await schemaType(h, holder))['svc/fields'].find((f: any) => f['svc/name'] === field)[
      'svc/meta'
    ];
    expect(fieldMeta).toMatchObject({ 'svc/default-value': { 'svc/id': ids[0] }, 'svc/required?': true });
    // A key deleted (as a client aligning schemas does); deleting one that is not there is no change.
    for (let i = 0; i < 2; i++)
      await h.run('schema.field/delete-meta', { 'holder-type': holder, name: field, key: 'svc/required?' });
    const after = (await schemaType(h, holder))['svc/fields'].find((f: any) => f['svc/name'] === field)[
      'svc/meta'
    ];
    expect(after).not.toHaveProperty('svc/required?');
    expect(after).toMatchObject({ 'svc/default-value': { 'svc/id': ids[0] } });
    expect(
      (
        await h.run('svc.entity/update', {
          type: holder,
          entity: { 'svc/id': task['svc/id'], [field]: null },
        })
      )[field],
    ).toBeNull();
    // A type's meta: one key set (search/disabled, ui/color, as clients set them), the rest kept.
    await h.run('svc.schema/batch', {
      commands: [
        { command: 'schema.type/set-meta', args: { name: holder, key: 'search/disabled', value: true } },
        { command: 'schema.type/set-meta', args: { name: holder, key: 'ui/color', value: '#f0a' } },
      ],
    });
    const typeMeta = (await schemaType(h, holder))['svc/meta'];
    expect(typeMeta).toMatchObject({ 'search/disabled': true, 'ui/color': '#f0a' });
  });

  it('rich-text fields: created with entity-component meta, refused at creation, readable as a document secret', async () => {
    const app = fresh('r');
    const type = `${app}/note`;
    await h.run('schema.type/create', typeArgs(type));
    const before = await h.run('svc.entity/create', { type, entity: {} });
    await h.run('schema.field/create', {
      'svc/holder-type': type,
      'svc/name': `${app}/body`,
      'svc/type': 'Collaboration~Documents/Document',
      'svc/meta': { 'svc/entity-component?': true },
    });
    const after = await h.run('svc.entity/create', { type, entity: {} });
    const refused = await h.attempt('svc.entity/create', { type, entity: { [`${app}/body`]: 'text' } });
    expect(refused).toMatchObject({ success: false, error: { code: 'invalid-args' } });
    const rows = await h.run('svc.entity/query', {
      query: {
        'q/from': type,
        'q/select': ['svc/id', { [`${app}/body`]: ['Collaboration~Documents/secret'] }],
      },
    });
    expect(rows.map((r: any) => r['svc/id'])).toEqual([before['svc/id'], after['svc/id']]);
    for (const r of rows)
      expect(r[`${app}/body`]['Collaboration~Documents/secret']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each([
    ['svc/rank-mixin', 'svc/rank'],
    ['Files/Files-mixin', 'Files/Files'],
    ['comments/comments-mixin', 'comments/comments'],
    ['assignments/assignments-mixin', 'assignments/assignees'],
    ['workflow/workflow', null],
  ])('svc.app/install-mixins %s', async (mixin, field) => {
    const type = `${fresh('m')}/thing`;
    await h.run('schema.type/create', typeArgs(type));
    await h.run('svc.app/install-mixins', { types: { [type]: [mixin] } });
    const t = await schemaType(h, type);
    expect(t['svc/meta']['app/mixins']).toEqual({ [mixin]: true });
    if (field) expect(t['svc/fields'].map((f: any) => f['svc/name'])).toContain(field);
    const unknown = await h.attempt('svc.app/install-mixins', { types: { [type]: ['nope/mixin'] } });
    expect(unknown).toMatchObject({ success: false, error: { code: 'invalid-args' } });
  });

  it.each([
    ['schema.type/create', { 'svc/name': 'no-slash' }, 'invalid-args'],
    ['schema.type/create', { 'svc/name': 'a/b', 'svc/fields': 'x' }, 'invalid-args'],
    [
      'schema.field/create',
      { 'svc/holder-type': 'nope/nope', 'svc/name': 'a/b', 'svc/type': 'svc/int' },
      'unknown-type',
    ],
    [
      'schema.field/create',
      { 'svc/holder-type': 'svc/user', 'svc/name': 'a/b', 'svc/type': 'svc/bogus' },
      'unknown-type',
    ],
    ['schema.field/delete', { 'holder-type': 'svc/user', name: 'svc/id' }, 'invalid-args'],
    [
      'schema.field/rename',
      { 'holder-type': 'svc/user', 'from-name': 'nope/x', 'to-name': 'a/b' },
      'unknown-field',
    ],
    [
      'schema.field/set-meta',
      { 'holder-type': 'svc/user', name: 'user/name', key: 3, value: 1 },
      'invalid-args',
    ],
    ['schema.type/delete', { name: 'svc/user' }, 'invalid-args'],
    ['schema.type/set-meta', { name: 'svc/user', key: 'svc/enum?', value: true }, 'invalid-args'],
    ['schema.type/set-meta', { name: 'svc/user', key: 'app/mixins', value: {} }, 'invalid-args'],
    ['schema.type/set-meta', { name: 'nope/x', key: 'ui/color', value: '#fff' }, 'unknown-type'],
    [
      'schema.field/delete-meta',
      { 'holder-type': 'svc/user', name: 'user/name', key: 'svc/collection?' },
      'invalid-args',
    ],
    ['schema.field/delete-meta', { 'holder-type': 'svc/user', name: 'nope/x', key: 'ui/x' }, 'unknown-field'],
    ['schema.nope/what', {}, 'unknown-command'],
  ])('%s with bad arguments fails with a command error (%j)', async (command, args, code) => {
    expect(await h.attempt(command, args)).toMatchObject({
      success: false,
      error: { code, message: expect.any(String) },
    });
  });
});
