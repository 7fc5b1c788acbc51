import type { SelectOption } from '@weft/core';
import type { SchemaField, SchemaResponse } from '@weft/core/protocol';
import { type Conversion, conversionOf, listItems } from '@weft/sync-engine';
import { USER_TYPE } from '../schema/builtins.js';
import { entityId } from './entity-ids.js';
import type { KeptFields } from './kept-fields.js';

// How an app's schema becomes workspace types in the app's own namespace `<ns>`: type `<ns>/<type>`,
// field `<ns>/<field>`. The app's `name` field (or its text/title field) is the type's mandatory
// title `<ns>/name`; `__syncAction` is never stored. Each type/subType pair maps as the service
// maps it (see docs/dev.md for the table).

/** A select: its options are entities of an option type of its own. */
export interface EnumField {
  appId: string;
  name: string;
  kind: 'enum';
  enumType: string;
  /**
   * a multi-select: a collection of the option type, as the service makes one (its value a list of
   * option names, or their comma-separated text)
   */
  many?: true;
  /** as the app's schema gives them; `color` and `icon` become the option's enum/color and enum/icon */
  options: SelectOption[];
}

export type MappedField =
  | {
      appId: string;
      name: string;
      kind: 'primitive';
      svcType: string;
      convert: Conversion;
      meta: Record<string, unknown>;
    }
  | EnumField
  | { appId: string; name: string; kind: 'rich'; format: 'md' | 'html' }
  /** a collection of svc/file: the files are downloaded into the workspace (download-files.ts) */
  | { appId: string; name: string; kind: 'files' }
  | {
      appId: string;
      name: string;
      kind: 'relation';
      many: boolean;
      targetAppType: string;
      targetType: string;
      /** an app field id, or for a relation to the workspace's users one of their fields (`user/email`) */
      targetFieldId: string;
      /** the target is the workspace's user type, not a synced type */
      toUsers?: true;
      partnerName: string;
      partnerMany: boolean;
      relationId: string;
      /**
       * a hidden text field on the source type holding the value as the app sent it (the target's
       * id, ids joined with ", "): readable even when it resolves to no synced row, as the service
       * keeps it
       */
      rawName: string;
    };

/**
 * The option names a select's value names: a multi-select's list; a single-select's one (the first
 * of a list, for a single-select kept as such while the app now sends a multi-select's values).
 */
export function optionNamesOf(f: EnumField, raw: unknown): string[] {
  if (f.many) return listItems(raw);
  if (Array.isArray(raw)) return listItems(raw).slice(0, 1);
  return raw === null || raw === undefined || raw === '' ? [] : [String(raw)];
}

export interface MappedType {
  appType: string;
  name: string;
  title: string;
  /** the app field that fills `<ns>/name` */
  titleField: string | undefined;
  fields: MappedField[];
}

export const SYNC_ACTION = '__syncAction';

/**
 * The names an app may give the workspace's user type as a relation's target: the real service's
 * (`fibery/user`, which apps send: they talk to the real service) and, leniently, the spec's.
 * Either lands on the workspace's own user type, whatever namespace the workspace speaks.
 */
const USER_TYPE_NAMES: ReadonlySet<string> = new Set(['fibery/user', USER_TYPE]);
export const isUserTypeName = (appType: string) => USER_TYPE_NAMES.has(appType);

const slug = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_]+/g, '-')
    .toLowerCase() || 'field';

/** An option's entity, its id made from its name (see optionId). */
export function optionEntity(id: string, o: SelectOption, rank: number): Record<string, unknown> {
  return {
    'svc/id': id,
    'enum/name': o.name,
    'svc/rank': rank,
    ...(o.color !== undefined ? { 'enum/color': o.color } : {}),
    ...(o.icon !== undefined ? { 'enum/icon': o.icon } : {}),
  };
}

/** A namespace for an app from its name: lower-case letters, digits and dashes. */
export function namespaceFor(appName: string): string {
  return (
    slug(appName)
      .replace(/[^a-z0-9-]/g, '')
      .slice(0, 40) || 'app'
  );
}

/** The workspace's primitive type of each conversion. */
const SVC_TYPES: Record<Conversion, string> = {
  id: 'svc/text',
  text: 'svc/text',
  email: 'svc/email',
  emoji: 'svc/emoji',
  int: 'svc/int',
  decimal: 'svc/decimal',
  bool: 'svc/bool',
  date: 'svc/date',
  'date-time': 'svc/date-time',
  'date-range': 'svc/date-range',
  'date-time-range': 'svc/date-time-range',
  location: 'svc/location',
  list: 'svc/text',
};

/** How values are read into a primitive field kept from before: as its own type takes them. */
const KEPT_CONVERSIONS: Record<string, Conversion> = {
  'svc/email': 'email',
  'svc/emoji': 'emoji',
  'svc/int': 'int',
  'svc/decimal': 'decimal',
  'svc/bool': 'bool',
  'svc/date': 'date',
  'svc/date-time': 'date-time',
  'svc/date-range': 'date-range',
  'svc/date-time-range': 'date-time-range',
  'svc/location': 'location',
};

/** A kept field's conversion: its type's; for text, a list (files, a multi-select's) joined. */
function keptConversion(svcType: string, field: SchemaField): Conversion {
  const sent = conversionOf(field);
  if (svcType === 'svc/text') return sent === 'list' || sent === 'files' ? 'list' : 'text';
  return KEPT_CONVERSIONS[svcType] ?? 'text';
}

/** A field the app's schema makes a select: a single- or multi-select; undefined for any other. */
function selectOf(p: ReturnType<typeof primitive>, field: SchemaField): 'single' | 'multi' | undefined {
  if (p === 'enum') return 'single';
  return field.subType === 'multi-select' ? 'multi' : undefined;
}

/** The option type of a select field `field` of type `type`. */
export const enumTypeName = (field: string, type: string) => `${field}_${type}`;

function primitive(field: SchemaField): { svcType: string; convert: Conversion } | 'rich' | 'enum' | 'files' {
  const convert = conversionOf(field);
  return convert === 'rich' || convert === 'enum' || convert === 'files'
    ? convert
    : { svcType: SVC_TYPES[convert], convert };
}

function numberMeta(field: SchemaField): Record<string, unknown> {
  const f = field.format;
  if (!f) return {};
  const unit = f.format === 'Money' ? f.currencyCode : f.format === 'Percent' ? '%' : f.unit;
  return unit ? { 'ui/number-unit': unit } : {};
}

/** `base`, else `base-2`, `base-3`, … : the first in neither `names` (which it joins) nor `also`. */
function unique(names: Set<string>, base: string, also: ReadonlySet<string> = new Set()): string {
  let name = base;
  for (let n = 2; names.has(name) || also.has(name); n++) name = `${base}-${n}`;
  names.add(name);
  return name;
}

/** A relation field's id in the workspace (its `svc/relation`), the same on every sync. */
export const relationIdOf = (sourceId: string, appType: string, appId: string) =>
  entityId(sourceId, 'relation', `${appType}.${appId}`);

/**
 * The workspace types for the selected app types (relations to unselected types are left out).
 * `partners` names the reverse fields that exist already (by relation id), so a reverse field keeps
 * its name whatever else the schema gained or the order it came in; `shapes`, the fields the
 * workspace made in another shape, which keep theirs (kept-fields.ts).
 */
export function mapSchema(
  ns: string,
  sourceId: string,
  schema: SchemaResponse,
  selected: string[],
  partners: ReadonlyMap<string, string> = new Map(),
  shapes: KeptFields = {},
): MappedType[] {
  const typeName = (t: string) => `${ns}/${slug(t)}`;
  const out: MappedType[] = [];
  const taken = new Map<string, Set<string>>();
  // Reverse fields made by an earlier sync keep their names: no other field takes them. They are
  // kept apart from `taken`, whose size numbers colliding field names as it always did.
  const reserved = new Map<string, Set<string>>();
  for (const t of selected) {
    taken.set(typeName(t), new Set([`${ns}/name`]));
    reserved.set(typeName(t), new Set());
  }
  for (const appType of selected)
    for (const [appId, field] of Object.entries(schema[appType] ?? {})) {
      const known = partners.get(relationIdOf(sourceId, appType, appId));
      const target = field.relation && selected.includes(field.relation.targetType);
      if (known && target) reserved.get(typeName(field.relation?.targetType as string))?.add(known);
      if (known && field.relation && isUserTypeName(field.relation.targetType)) {
        if (!reserved.has(USER_TYPE)) {
          reserved.set(USER_TYPE, new Set());
          taken.set(USER_TYPE, new Set());
        }
        reserved.get(USER_TYPE)?.add(known);
      }
    }
  /** relation fields whose raw field is named once every other field of its type is */
  const raws: { field: { name: string; rawName: string }; type: string }[] = [];
  for (const appType of selected) {
    const fields = schema[appType] ?? {};
    const name = typeName(appType);
    const names = taken.get(name) as Set<string>;
    const kept = reserved.get(name) as Set<string>;
    const entries = Object.entries(fields);
    const titleField =
      entries.find(([id]) => id === 'name')?.[0] ?? entries.find(([, f]) => f.subType === 'title')?.[0];
    const mapped: MappedType = { appType, name, title: appType, titleField, fields: [] };
    for (const [appId, field] of entries) {
      if (appId === SYNC_ACTION || appId === titleField) continue;
      let fname = `${ns}/${slug(appId)}`;
      if (names.has(fname) || kept.has(fname)) fname = `${fname}-${names.size}`;
      names.add(fname);
      const base = { appId, name: fname };
      // A field made before in a shape the app's values cannot take is left out (kept-fields.ts).
      const shape = shapes[name]?.[fname];
      if (shape === 'skip') continue;
      if (field.relation) {
        const r = field.relation;
        const toUsers = isUserTypeName(r.targetType);
        if (!toUsers && !selected.includes(r.targetType)) continue;
        const target = toUsers ? USER_TYPE : typeName(r.targetType);
        if (toUsers && !taken.has(target)) {
          taken.set(target, new Set());
          reserved.set(target, new Set());
        }
        const targetNames = taken.get(target) as Set<string>;
        const relationId = relationIdOf(sourceId, appType, appId);
        // Many relations may share a targetName (Owner, Assigned By → "Tasks"): the first takes it,
        // the next `-of-<type>`, then `-of-<type>-2`, … in schema order, unless named before.
        const targetKept = reserved.get(target) as Set<string>;
        let partner = partners.get(relationId);
        if (!partner) {
          partner = `${ns}/${slug(r.targetName || appId)}`;
          if (targetNames.has(partner) || targetKept.has(partner))
            partner = unique(targetNames, `${partner}-of-${slug(appType)}`, targetKept);
        }
        targetNames.add(partner);
        const relation: Extract<MappedField, { kind: 'relation' }> = {
          ...base,
          kind: 'relation',
          // A relation made before with the other cardinality keeps it (kept-fields.ts).
          many: shape === 'to-many' || (shape !== 'to-one' && r.cardinality === 'many-to-many'),
          targetAppType: r.targetType,
          targetType: target,
          targetFieldId: r.targetFieldId,
          partnerName: partner,
          partnerMany: r.cardinality !== 'one-to-one',
          relationId,
          rawName: '',
          ...(toUsers ? { toUsers: true as const } : {}),
        };
        mapped.fields.push(relation);
        raws.push({ field: relation, type: name });
        continue;
      }
      const p = primitive(field);
      // A field made before in another shape keeps it (kept-fields.ts).
      const select =
        shape === undefined
          ? selectOf(p, field)
          : shape === 'single' || shape === 'multi'
            ? shape
            : undefined;
      if (typeof shape === 'object')
        mapped.fields.push({
          ...base,
          kind: 'primitive',
          svcType: shape.primitive,
          convert: keptConversion(shape.primitive, field),
          meta: {},
        });
      else if (shape === 'files' || (shape === undefined && p === 'files'))
        mapped.fields.push({ ...base, kind: 'files' });
      else if (shape === 'rich' || (shape === undefined && p === 'rich'))
        mapped.fields.push({ ...base, kind: 'rich', format: field.subType === 'html' ? 'html' : 'md' });
      else if (select)
        mapped.fields.push({
          ...base,
          kind: 'enum',
          enumType: enumTypeName(fname, name),
          ...(select === 'multi' ? { many: true as const } : {}),
          options: (field.options ?? []).map((o) => ({
            name: o.name,
            ...(o.default ? { default: true } : {}),
            ...(o.final ? { final: true } : {}),
            ...(typeof o.color === 'string' && o.color !== '' ? { color: o.color } : {}),
            ...(typeof o.icon === 'string' && o.icon !== '' ? { icon: o.icon } : {}),
          })),
        });
      else if (typeof p === 'object')
        mapped.fields.push({
          ...base,
          kind: 'primitive',
          ...p,
          meta: {
            ...(field.type === 'number' ? numberMeta(field) : {}),
            ...(field.readonly ? { 'svc/readonly?': true } : {}),
          },
        });
    }
    out.push(mapped);
  }
  // Raw fields last, so they never change the names (and numbers) other fields get.
  for (const { field, type } of raws)
    field.rawName = unique(taken.get(type) as Set<string>, `${field.name}-raw`, reserved.get(type));
  return out;
}
