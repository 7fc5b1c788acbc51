import { FILE_TYPE } from '../schema/builtins.js';
import { DOCUMENT_TYPE } from '../schema/catalog.js';
import type { Workspace } from '../workspace.js';
import { entityId } from './entity-ids.js';
import type { SelectOption } from '@weft/core';
import { type MappedType, optionEntity } from './schema-mapping.js';

// Creates the app's types and fields through the data API's own schema commands. Only what is
// missing is created: a changed schema on a later sync adds fields and options, and never drops a
// field or its data (a field made in another shape keeps it: kept-fields.ts, which reports it).

type Json = Record<string, unknown>;

export async function run(
  workspace: Workspace,
  commands: Json[],
  options?: { createResults?: boolean },
): Promise<unknown[]> {
  if (commands.length === 0) return [];
  const [result] = await workspace.execute([{ command: 'svc.command/batch', args: { commands } }], options);
  if (!result?.success) throw new Error(result ? result.error.message : 'no result');
  return result.result as unknown[];
}

async function currentSchema(workspace: Workspace): Promise<Map<string, Map<string, string>>> {
  const [result] = await workspace.execute([{ command: 'svc.schema/query', args: {} }]);
  if (!result?.success) throw new Error('cannot read the schema');
  const types = (result.result as { 'svc/types': { 'svc/name': string; 'svc/fields': Json[] }[] })[
    'svc/types'
  ];
  return new Map(
    types.map((t) => [
      t['svc/name'],
      new Map(t['svc/fields'].map((f) => [String(f['svc/name']), String(f['svc/type'])])),
    ]),
  );
}

export const optionId = (enumType: string, name: string) => entityId('enum', enumType, name);

/**
 * Creates what is missing, for types mapped onto the workspace as it is (kept-fields.ts). `labels`
 * (type -> field -> label, see field-labels.ts) go into the meta of the fields created, so a first
 * sync does not set them one by one afterwards.
 */
export async function applySchema(
  workspace: Workspace,
  types: MappedType[],
  labels: Map<string, Map<string, string>> = new Map(),
): Promise<void> {
  const labelled = (type: string, field: string, meta: Json = {}): Json => {
    const label = labels.get(type)?.get(field);
    return label === undefined ? meta : { ...meta, 'ui/label': label };
  };
  let existing = await currentSchema(workspace);
  const create: Json[] = [];
  for (const t of types) {
    if (existing.has(t.name)) continue;
    // A new type is made with its plain fields (and the text kept beside each relation), which
    // the workspace makes at once; the fields that need other types follow, below.
    const title = t.name.replace(/\/.*/, '/name');
    const plain: Json[] = [];
    for (const f of t.fields) {
      if (f.name === title) continue;
      if (f.kind === 'relation')
        plain.push({
          'svc/name': f.rawName,
          'svc/type': 'svc/text',
          'svc/meta': labelled(t.name, f.rawName, { 'ui/hidden?': true, 'svc/readonly?': true }),
        });
      else if (f.kind === 'primitive')
        plain.push({
          'svc/name': f.name,
          'svc/type': f.svcType,
          'svc/meta': labelled(t.name, f.name, f.meta),
        });
    }
    create.push({
      command: 'schema.type/create',
      args: {
        'svc/name': t.name,
        'svc/meta': { 'svc/domain?': true },
        'svc/fields': [
          {
            'svc/name': title,
            'svc/type': 'svc/text',
            'svc/meta': labelled(t.name, title, { 'ui/title?': true }),
          },
          ...plain,
        ],
      },
    });
  }
  await run(
    workspace,
    [{ command: 'svc.schema/batch', args: { commands: create } }].filter(() => create.length > 0),
  );
  existing = await currentSchema(workspace);

  for (const t of types) {
    const have = existing.get(t.name) ?? new Map<string, string>();
    const commands: Json[] = [];
    const options: Json[] = [];
    for (const f of t.fields) {
      // The value as sent, kept readable beside the relation (also for relations made before).
      if (f.kind === 'relation' && !have.has(f.rawName))
        commands.push({
          command: 'schema.field/create',
          args: {
            'svc/holder-type': t.name,
            'svc/name': f.rawName,
            'svc/type': 'svc/text',
            'svc/meta': labelled(t.name, f.rawName, { 'ui/hidden?': true, 'svc/readonly?': true }),
          },
        });
      // A field made before is taken as it is: the mapping kept its shape (kept-fields.ts).
      if (have.has(f.name)) {
        if (f.kind === 'enum') options.push(...(await missingOptions(workspace, f.enumType, f.options)));
        continue;
      }
      switch (f.kind) {
        case 'primitive':
          commands.push({
            command: 'schema.field/create',
            args: {
              'svc/holder-type': t.name,
              'svc/name': f.name,
              'svc/type': f.svcType,
              'svc/meta': labelled(t.name, f.name, f.meta),
            },
          });
          break;
        case 'files':
          commands.push({
            command: 'schema.field/create',
            args: {
              'svc/holder-type': t.name,
              'svc/name': f.name,
              'svc/type': FILE_TYPE,
              'svc/meta': labelled(t.name, f.name, { 'svc/collection?': true }),
            },
          });
          break;
        case 'rich':
          commands.push({
            command: 'schema.field/create',
            args: {
              'svc/holder-type': t.name,
              'svc/name': f.name,
              'svc/type': DOCUMENT_TYPE,
              'svc/meta': labelled(t.name, f.name, { 'svc/entity-component?': true }),
            },
          });
          break;
        case 'enum': {
          if (!existing.has(f.enumType))
            commands.push({ command: 'schema.enum/create', args: { 'svc/name': f.enumType } });
          commands.push({
            command: 'schema.field/create',
            args: {
              'svc/holder-type': t.name,
              'svc/name': f.name,
              'svc/type': f.enumType,
              // As the service marks every select field: a component of its type; a multi-select
              // is a collection of its options.
              'svc/meta': labelled(t.name, f.name, {
                ...(f.many ? { 'svc/collection?': true } : {}),
                'svc/type-component?': true,
              }),
            },
          });
          for (const [rank, o] of f.options.entries()) {
            options.push({
              command: 'svc.entity/create',
              args: {
                type: f.enumType,
                entity: optionEntity(optionId(f.enumType, o.name), o, rank),
              },
            });
          }
          // A default option is a single-select's: a multi-select starts empty.
          const byDefault = f.many ? undefined : f.options.find((o) => o.default);
          if (byDefault)
            options.push({
              command: 'schema.field/set-meta',
              args: {
                'holder-type': t.name,
                name: f.name,
                key: 'svc/default-value',
                value: { 'svc/id': optionId(f.enumType, byDefault.name) },
              },
            });
          break;
        }
        case 'relation': {
          commands.push({
            command: 'schema.field/create',
            args: {
              'svc/holder-type': t.name,
              'svc/name': f.name,
              'svc/type': f.targetType,
              'svc/meta': labelled(t.name, f.name, {
                'svc/relation': f.relationId,
                ...(f.many ? { 'svc/collection?': true } : {}),
              }),
            },
          });
          commands.push({
            command: 'schema.field/create',
            args: {
              'svc/holder-type': f.targetType,
              'svc/name': f.partnerName,
              'svc/type': t.name,
              'svc/meta': labelled(f.targetType, f.partnerName, {
                'svc/relation': f.relationId,
                ...(f.partnerMany ? { 'svc/collection?': true } : {}),
                'svc/readonly?': true,
              }),
            },
          });
          break;
        }
      }
    }
    if (commands.length > 0) await run(workspace, [{ command: 'svc.schema/batch', args: { commands } }]);
    if (options.length > 0) await run(workspace, options);
  }
}

async function missingOptions(
  workspace: Workspace,
  enumType: string,
  options: SelectOption[],
): Promise<Json[]> {
  if (options.length === 0) return [];
  const [result] = await workspace.execute([
    {
      command: 'svc.entity/query',
      args: { query: { 'q/from': enumType, 'q/select': ['enum/name'], 'q/limit': 'q/no-limit' } },
    },
  ]);
  const have = new Set(result?.success ? (result.result as Json[]).map((r) => r['enum/name']) : []);
  return options
    .map((o, rank) => ({ o, rank: rank + have.size }))
    .filter(({ o }) => !have.has(o.name))
    .map(({ o, rank }) => ({
      command: 'svc.entity/create',
      args: {
        type: enumType,
        entity: optionEntity(optionId(enumType, o.name), o, rank),
      },
    }));
}
