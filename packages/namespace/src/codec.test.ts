import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codecsFor, type FieldLookup, NamespaceCodec } from './codec.js';

const { in: fromFibery, out: toFibery } = codecsFor('fibery')!;

// A small catalog in svc spelling: Shop/Order has text, JSON and int fields, a to-one relation
// to Shop/Customer and a collection of svc/file.
const CATALOG: Record<string, Record<string, { kind: 'value' } | { kind: 'ref'; target: string }>> = {
  'Shop/Order': {
    'svc/id': { kind: 'value' },
    'Shop/name': { kind: 'value' },
    'Shop/data': { kind: 'value' },
    'Shop/count': { kind: 'value' },
    'Shop/customer': { kind: 'ref', target: 'Shop/Customer' },
    'Files/Files': { kind: 'ref', target: 'svc/file' },
  },
  'Shop/Customer': { 'svc/id': { kind: 'value' }, 'Shop/name': { kind: 'value' } },
  'svc/file': { 'svc/id': { kind: 'value' }, 'svc/name': { kind: 'value' }, 'svc/secret': { kind: 'value' } },
};
const lookup: FieldLookup = (type, field) => CATALOG[type]?.[field];
const out = toFibery.withLookup(lookup);
const back = fromFibery.withLookup(lookup);

// User data: any JSON, with strings that look like names on purpose.
const nameLike = fc.constantFrom('svc/x', 'svc.entity/query', 'fibery/id', 'svc/id', 'svc', 'x svc/y');
const text = fc.oneof(fc.string(), nameLike);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(fc.string(), nameLike), tie('value'), { maxKeys: 3 }),
  ),
})).value;
const uuid = fc.uuid();
const customer = fc.record({ 'svc/id': uuid, 'Shop/name': text });
const file = fc.record({ 'svc/id': uuid, 'svc/name': text, 'svc/secret': uuid });
const order = fc.record(
  {
    'svc/id': uuid,
    'Shop/name': text,
    'Shop/data': json,
    'Shop/count': fc.integer(),
    'Shop/customer': fc.option(customer),
    'Files/Files': fc.array(file, { maxLength: 2 }),
  },
  { requiredKeys: ['svc/id'] },
);

const query = {
  command: 'svc.entity/query',
  args: {
    query: {
      'q/from': 'Shop/Order',
      'q/select': ['svc/id', 'Shop/name', 'Shop/data', { 'Shop/customer': ['svc/id', 'Shop/name'] }],
      'q/where': ['q/and', ['=', ['Shop/customer', 'svc/id'], '$c'], ['>', ['Shop/count'], '$n']],
      'q/order-by': [[['svc/creation-date'], 'q/asc']],
      'q/limit': 'q/no-limit',
    },
    params: { $c: 'svc/x', $n: 3 },
  },
};

describe('NamespaceCodec', () => {
  it('renames command names, query names and field paths, and leaves params and operators', () => {
    expect(out.commands([query])).toEqual([
      {
        command: 'fibery.entity/query',
        args: {
          query: {
            'q/from': 'Shop/Order',
            'q/select': [
              'fibery/id',
              'Shop/name',
              'Shop/data',
              { 'Shop/customer': ['fibery/id', 'Shop/name'] },
            ],
            'q/where': ['q/and', ['=', ['Shop/customer', 'fibery/id'], '$c'], ['>', ['Shop/count'], '$n']],
            'q/order-by': [[['fibery/creation-date'], 'q/asc']],
            'q/limit': 'q/no-limit',
          },
          params: { $c: 'svc/x', $n: 3 },
        },
      },
    ]);
  });

  it('renames the paths of nested alias objects in an object q/select, sub-queries within them too', () => {
    const select = {
      id: 'svc/id',
      customer: { id: ['Shop/customer', 'svc/id'], made: ['Shop/customer', 'svc/creation-date'] },
      files: { 'q/from': 'Files/Files', 'q/select': { s: 'svc/secret', deeper: { n: ['svc/name'] } } },
    };
    const [c] = out.commands([
      { command: 'svc.entity/query', args: { query: { 'q/from': 'Shop/Order', 'q/select': select } } },
    ]) as Array<{ args: { query: { 'q/select': unknown } } }>;
    expect(c!.args.query['q/select']).toEqual({
      id: 'fibery/id',
      customer: { id: ['Shop/customer', 'fibery/id'], made: ['Shop/customer', 'fibery/creation-date'] },
      files: { 'q/from': 'Files/Files', 'q/select': { s: 'fibery/secret', deeper: { n: ['fibery/name'] } } },
    });
  });

  it('renames the batch entity commands: their entities and conflict field, and the upsert answer', () => {
    const upsert = {
      command: 'svc.entity.batch/create-or-update',
      args: {
        type: 'Shop/Order',
        'conflict-field': 'Shop/name',
        'conflict-action': 'skip-create',
        entities: [{ 'svc/id': 'i', 'Shop/name': 'svc/x', 'Shop/customer': { 'svc/id': 'c' } }],
      },
    };
    const [c] = out.commands([upsert]) as Array<{ command: string; args: Record<string, unknown> }>;
    expect(c).toEqual({
      command: 'fibery.entity.batch/create-or-update',
      args: {
        type: 'Shop/Order',
        'conflict-field': 'Shop/name',
        'conflict-action': 'skip-create',
        entities: [{ 'fibery/id': 'i', 'Shop/name': 'svc/x', 'Shop/customer': { 'fibery/id': 'c' } }],
      },
    });
    const answer = [
      {
        success: true,
        result: [
          { action: 'create', created: { 'svc/id': 'n', 'Shop/name': 'svc/y' } },
          { action: 'skip-create', entity: { 'svc/id': 'i' }, duplicate: { 'svc/id': 'd' } },
        ],
      },
    ];
    expect(out.results([upsert], answer)).toEqual([
      {
        success: true,
        result: [
          { action: 'create', created: { 'fibery/id': 'n', 'Shop/name': 'svc/y' } },
          { action: 'skip-create', entity: { 'fibery/id': 'i' }, duplicate: { 'fibery/id': 'd' } },
        ],
      },
    ]);
  });

  it("renames a space's lifecycle commands and a workflow's states: their keys, never their values", () => {
    const fromPage = [
      {
        command: 'fibery.app/save',
        args: { app: { 'fibery/id': 'a', 'fibery/name': 'fibery/x', 'fibery/namespace': 'Road' } },
      },
      { command: 'fibery.app/delete', args: { 'fibery/id': 'a' } },
      {
        command: 'workflow/install',
        args: {
          type: 'Road/Task',
          states: [{ 'fibery/id': 's', 'enum/name': 'fibery/y' }],
          'default-state-id': 's',
        },
      },
    ];
    const svc = back.commands(fromPage);
    expect(svc).toEqual([
      {
        command: 'svc.app/save',
        args: { app: { 'svc/id': 'a', 'svc/name': 'fibery/x', 'svc/namespace': 'Road' } },
      },
      { command: 'svc.app/delete', args: { 'svc/id': 'a' } },
      {
        command: 'workflow/install',
        args: {
          type: 'Road/Task',
          states: [{ 'svc/id': 's', 'enum/name': 'fibery/y' }],
          'default-state-id': 's',
        },
      },
    ]);
    expect(
      out.results(svc, [
        { success: true, result: { 'svc/id': 'a', 'svc/name': 'svc/y' } },
        { success: true, result: 'ok' },
        { success: true, result: 'ok' },
      ]),
    ).toEqual([
      { success: true, result: { 'fibery/id': 'a', 'fibery/name': 'svc/y' } },
      { success: true, result: 'ok' },
      { success: true, result: 'ok' },
    ]);
  });

  it('renames a field written on its own in q/where, and never a parameter', () => {
    const bare = (where: unknown) => ({
      command: 'svc.entity/query',
      args: { query: { 'q/from': 'Shop/Order', 'q/select': ['svc/id'], 'q/where': where } },
    });
    const where = (commands: unknown) =>
      (commands as Array<{ args: { query: { 'q/where': unknown } } }>)[0]!.args.query['q/where'];
    expect(
      where(out.commands([bare(['and', ['=', 'svc/id', '$svc/id'], ['>', 'Shop/count', '$n']])])),
    ).toEqual(['and', ['=', 'fibery/id', '$svc/id'], ['>', 'Shop/count', '$n']]);
    expect(where(back.commands([bare(['=', 'fibery/public-id', '$p'])]))).toEqual([
      '=',
      'svc/public-id',
      '$p',
    ]);
  });

  it('renames the names in schema commands and keeps meta values that are data', () => {
    const create = {
      command: 'schema.type/create',
      args: {
        'svc/name': 'Shop/Note',
        'svc/meta': { 'svc/domain?': true, 'app/mixins': { 'svc/rank-mixin': true }, 'ui/color': '#fff' },
        'svc/fields': [
          { 'svc/name': 'svc/id', 'svc/type': 'svc/uuid', 'svc/meta': { 'svc/id?': true } },
          { 'svc/name': 'Shop/body', 'svc/type': 'svc/text', 'svc/meta': { 'svc/default-value': 'svc/x' } },
        ],
      },
    };
    const setMeta = {
      command: 'schema.field/set-meta',
      args: {
        name: 'Shop/state',
        'holder-type': 'Shop/Note',
        key: 'svc/default-value',
        value: { 'svc/id': 'u' },
      },
    };
    const mixins = {
      command: 'svc.app/install-mixins',
      args: { types: { 'Shop/Note': ['svc/rank-mixin'] } },
    };
    expect(out.commands([create, setMeta, mixins])).toEqual([
      {
        command: 'schema.type/create',
        args: {
          'fibery/name': 'Shop/Note',
          'fibery/meta': {
            'fibery/domain?': true,
            'app/mixins': { 'fibery/rank-mixin': true },
            'ui/color': '#fff',
          },
          'fibery/fields': [
            {
              'fibery/name': 'fibery/id',
              'fibery/type': 'fibery/uuid',
              'fibery/meta': { 'fibery/id?': true },
            },
            {
              'fibery/name': 'Shop/body',
              'fibery/type': 'fibery/text',
              'fibery/meta': { 'fibery/default-value': 'svc/x' },
            },
          ],
        },
      },
      {
        command: 'schema.field/set-meta',
        args: {
          name: 'Shop/state',
          'holder-type': 'Shop/Note',
          key: 'fibery/default-value',
          value: { 'fibery/id': 'u' },
        },
      },
      { command: 'fibery.app/install-mixins', args: { types: { 'Shop/Note': ['fibery/rank-mixin'] } } },
    ]);
  });

  it('knows the fields a type made earlier in the same request holds data', () => {
    const batch = [
      {
        command: 'fibery.schema/batch',
        args: {
          commands: [
            {
              command: 'schema.type/create',
              args: {
                'fibery/name': 'Shop/Blob',
                'fibery/fields': [{ 'fibery/name': 'Shop/json', 'fibery/type': 'fibery/json-value' }],
              },
            },
          ],
        },
      },
      {
        command: 'fibery.entity/create',
        args: {
          type: 'Shop/Blob',
          entity: { 'Shop/json': { 'fibery/x': 1 }, 'Shop/ref': { 'fibery/id': 'a' } },
        },
      },
    ];
    const decoded = fromFibery.commands(batch) as { args: { entity: unknown } }[];
    // the JSON value is data; an unknown field's object is taken for a reference
    expect(decoded[1]!.args.entity).toEqual({
      'Shop/json': { 'fibery/x': 1 },
      'Shop/ref': { 'svc/id': 'a' },
    });
  });

  it('renames names in messages, not inside longer words', () => {
    expect(out.text('Unknown command "svc.foo/bar"; field svc/id; mysvc/x; a/svc/b')).toBe(
      'Unknown command "fibery.foo/bar"; field fibery/id; mysvc/x; a/svc/b',
    );
  });

  it('renames a webhook delivery: effect names, types, fields, value keys', () => {
    const delivery = {
      sequenceId: 1,
      effects: [
        {
          effect: 'svc.entity/update',
          id: 'i',
          type: 'Shop/Order',
          values: { 'Shop/name': 'svc/x', 'svc/modification-date': 'd' },
          valuesBefore: { 'Shop/data': { 'svc/y': 1 } },
        },
        {
          effect: 'svc.entity/add-collection-items',
          type: 'Shop/Order',
          field: 'Files/Files',
          items: [{ 'svc/id': 'f' }],
        },
      ],
    };
    expect(out.delivery(delivery)).toEqual({
      sequenceId: 1,
      effects: [
        {
          effect: 'fibery.entity/update',
          id: 'i',
          type: 'Shop/Order',
          values: { 'Shop/name': 'svc/x', 'fibery/modification-date': 'd' },
          valuesBefore: { 'Shop/data': { 'svc/y': 1 } },
        },
        {
          effect: 'fibery.entity/add-collection-items',
          type: 'Shop/Order',
          field: 'Files/Files',
          items: [{ 'fibery/id': 'f' }],
        },
      ],
    });
  });

  it('property: svc -> fibery -> svc is the identity on query answers, and data never changes', () => {
    fc.assert(
      fc.property(fc.array(order, { maxLength: 4 }), (rows) => {
        const answer = [{ success: true, result: rows }];
        const wire = out.results([query], answer) as { result: Record<string, unknown>[] }[];
        const svcQuery = fromFibery.commands(out.commands([query]));
        expect(svcQuery).toEqual([query]);
        expect(back.results(svcQuery, wire)).toEqual(answer);
        wire[0]!.result.forEach((row, i) => {
          const original = rows[i]!;
          expect(row['fibery/id']).toBe(original['svc/id']);
          expect(row['Shop/name']).toEqual(original['Shop/name']);
          // a JSON value is data, even with keys that look like names
          expect(row['Shop/data']).toEqual(original['Shop/data']);
          expect(Object.keys(row).some((k) => k.startsWith('svc/'))).toBe(false);
        });
      }),
    );
  });

  it('property: create, update and batch answers and failures come back as they were', () => {
    const create = { command: 'svc.entity/create', args: { type: 'Shop/Order', entity: {} } };
    const batch = { command: 'svc.command/batch', args: { commands: [create, query] } };
    fc.assert(
      fc.property(order, fc.array(order, { maxLength: 2 }), text, (created, rows, message) => {
        const answer = [
          { success: true, result: created },
          { success: true, result: [{ success: true, result: created }, rows] },
          { success: false, error: { message: `at ${message}`, code: 'bad-request' } },
        ];
        const commands = [create, batch, query];
        expect(back.results(commands, out.results(commands, answer))).toEqual(
          answer.map((a) =>
            a.success ? a : { ...a, error: { ...a.error, message: back.text(out.text(a.error!.message)) } },
          ),
        );
      }),
    );
  });

  it('property: schema answers round-trip', () => {
    const field = fc.record({
      'svc/name': fc.constantFrom('svc/id', 'Shop/name', 'svc/public-id'),
      'svc/type': fc.constantFrom('svc/uuid', 'svc/text', 'Shop/Customer'),
      'svc/meta': fc.record({ 'svc/readonly?': fc.boolean(), 'svc/default-value': text }),
      'svc/deleted?': fc.constant(false),
    });
    const type = fc.record({
      'svc/name': fc.constantFrom('Shop/Order', 'svc/user', 'svc/file'),
      'svc/fields': fc.array(field, { maxLength: 3 }),
      'svc/meta': fc.record({
        'svc/domain?': fc.boolean(),
        'app/mixins': fc.constant({ 'svc/rank-mixin': true }),
      }),
      'svc/description': text,
    });
    const schema = fc.record({ 'svc/id': uuid, 'svc/types': fc.array(type, { maxLength: 3 }) });
    const command = { command: 'svc.schema/query', args: {} };
    fc.assert(
      fc.property(schema, (s) => {
        const wire = out.results([command], [{ success: true, result: s }]);
        // no key names svc (descriptions and default texts are data and may)
        expect(JSON.stringify(wire)).not.toMatch(/"svc[./][^"]*":/);
        expect(back.results([command], wire)).toEqual([{ success: true, result: s }]);
      }),
    );
  });

  it('refuses to rename a namespace into itself', () => {
    expect(() => new NamespaceCodec('svc', 'svc')).toThrow();
    expect(codecsFor('svc')).toBeUndefined();
  });
});
