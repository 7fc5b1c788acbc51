import type { SchemaResponse } from '@weft/core/protocol';
import { type Catalog, DOCUMENT_TYPE, type FieldDef, loadCatalog } from '../schema/catalog.js';
import { FILE_TYPE } from '../schema/builtins.js';
import type { Workspace } from '../workspace.js';
import { enumTypeName, type MappedField, type MappedType, mapSchema } from './schema-mapping.js';

// A field the workspace made before in another shape than the app's schema now asks for keeps the
// shape it has, and the app's values are written as that shape takes them: nothing stored is
// dropped or converted behind the user's back, and the sync goes on. Such a field is, say, a text
// field where the app now sends a number, files or a multi-select (an earlier weft stored both as
// text), a select the app turned from single to multi or back, or rich text that became plain.
// A field whose shape cannot take the app's values at all (a relation where the app now sends
// text or a relation to another type, or the other way round) is left as it is and not written:
// the rest of the row, and the run, go on. Every job of a run maps the app's rows with the same
// shapes: the start job reads them and the run's plan carries them.

/** A field's shape, relations aside: a primitive type, a single- or multi-select, rich text or files. */
type Shape = { primitive: string } | 'single' | 'multi' | 'rich' | 'files';

/**
 * The shape a field keeps: one of Shape; a relation's cardinality (`to-one`, `to-many`: the app now
 * sends the other to the same type); `skip` for a field the app's values cannot go into, not written.
 */
export type KeptShape = Shape | 'to-one' | 'to-many' | 'skip';

/** Workspace type -> field -> the shape it keeps, for the fields whose shape differs only. */
export type KeptFields = Record<string, Record<string, KeptShape>>;

/** The shape the app's schema asks of a mapped field; undefined for relations. */
function wantedShape(f: MappedField): Shape | undefined {
  switch (f.kind) {
    case 'primitive':
      return { primitive: f.svcType };
    case 'enum':
      return f.many ? 'multi' : 'single';
    case 'rich':
    case 'files':
      return f.kind;
    case 'relation':
      return undefined;
  }
}

/** The shape of a field the workspace has; undefined for one no app field maps to (a relation). */
function existingShape(catalog: Catalog, f: FieldDef, enumType: string): Shape | undefined {
  if (f.kind === 'primitive') return { primitive: f.fieldType };
  const target = catalog.target(f).name;
  if (target === DOCUMENT_TYPE) return 'rich';
  if (target === FILE_TYPE && f.kind === 'many') return 'files';
  if (target === enumType) return f.kind === 'many' ? 'multi' : 'single';
  return undefined;
}

const same = (a: Shape, b: Shape) =>
  typeof a === 'object' && typeof b === 'object' ? a.primitive === b.primitive : a === b;

const described = (s: Shape) =>
  typeof s === 'object'
    ? s.primitive
    : s === 'single' || s === 'multi'
      ? `a ${s}-select`
      : s === 'rich'
        ? 'rich text'
        : 'files';

/** A field of the workspace as a warning names it. */
function describedField(catalog: Catalog, f: FieldDef, enumType: string): string {
  const shape = existingShape(catalog, f, enumType);
  if (shape) return described(shape);
  return `${f.kind === 'many' ? 'a collection of' : 'a relation to'} ${catalog.target(f).name}`;
}

/** What the app now sends for a field, as a warning names it. */
function describedWanted(f: MappedField): string {
  if (f.kind === 'relation') return `${f.many ? 'a collection of' : 'a relation to'} ${f.targetType}`;
  return described(wantedShape(f) as Shape);
}

/** The fields of `mapped` the workspace has in another shape, with a warning for each. */
function keptFields(catalog: Catalog, mapped: MappedType[]): { kept: KeptFields; warnings: string[] } {
  const kept: KeptFields = {};
  const warnings: string[] = [];
  for (const t of mapped) {
    const holder = catalog.findType(t.name);
    if (!holder) continue;
    const keep = (field: string, shape: KeptShape, warning: string) => {
      kept[t.name] = { ...kept[t.name], [field]: shape };
      warnings.push(`${t.name}: field ${field} ${warning}`);
    };
    for (const f of t.fields) {
      const have = holder.byName.get(f.name);
      if (!have) continue;
      const enumType = enumTypeName(f.name, t.name);
      const wanted = wantedShape(f);
      const shape = existingShape(catalog, have, enumType);
      if (!wanted || !shape) {
        // A relation on either side: it fits only a relation to the same type; one to many or
        // many to one keeps its cardinality (the first of a list, a list of one).
        const fits =
          f.kind === 'relation' && have.kind !== 'primitive' && catalog.target(have).name === f.targetType;
        if (fits && (have.kind === 'many') !== f.many)
          keep(
            f.name,
            have.kind === 'many' ? 'to-many' : 'to-one',
            `is ${describedField(catalog, have, enumType)}, the app now sends ${describedWanted(f)}; kept as it is, the values read as it takes them`,
          );
        else if (!fits)
          keep(
            f.name,
            'skip',
            `is ${describedField(catalog, have, enumType)}, the app now sends ${describedWanted(f)}; left as it is and not written`,
          );
        continue;
      }
      if (!same(shape, wanted))
        keep(
          f.name,
          shape,
          `is ${described(shape)}, the app now sends ${described(wanted)}; kept as it is, the values read as it takes them`,
        );
    }
  }
  return { kept, warnings };
}

/**
 * The reverse fields the workspace has already for the relations of `mapped`, by relation id: the
 * field on the target type sharing the relation's `svc/relation` (other than the relation itself).
 */
function existingPartners(catalog: Catalog, mapped: MappedType[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of mapped)
    for (const f of t.fields) {
      if (f.kind !== 'relation') continue;
      const target = catalog.findType(f.targetType);
      for (const [name, def] of target?.byName ?? []) {
        if (def.meta['svc/relation'] !== f.relationId) continue;
        if (f.targetType === t.name && name === f.name) continue;
        out.set(f.relationId, name);
      }
    }
  return out;
}

/** A source's app schema and where it goes: the source's namespace, id and synced types. */
export interface SourceSchema {
  namespace: string;
  sourceId: string;
  schema: SchemaResponse;
  types: string[];
}

/** The app's types as mapped onto the workspace, and what the mapping kept from before. */
export interface WorkspaceMapping {
  mapped: MappedType[];
  /** reverse field names made before, by relation id */
  partners: Map<string, string>;
  kept: KeptFields;
  /** a line per field kept in its shape */
  warnings: string[];
}

/**
 * The app's schema mapped onto the workspace as it is, as every run maps it (a sync's start job,
 * an app webhook's run, a Verify): reverse fields made before keep their names (`partners`, by
 * relation id, see mapSchema), and fields made in another shape keep theirs (`kept`).
 */
export async function mapOntoWorkspace(workspace: Workspace, args: SourceSchema): Promise<WorkspaceMapping> {
  const map = (partners?: ReadonlyMap<string, string>, kept?: KeptFields) =>
    mapSchema(args.namespace, args.sourceId, args.schema, args.types, partners, kept);
  const catalog = await loadCatalog(workspace.driver);
  const partners = existingPartners(catalog, map());
  const named = map(partners);
  const { kept, warnings } = keptFields(catalog, named);
  return {
    mapped: Object.keys(kept).length > 0 ? map(partners, kept) : named,
    partners,
    kept,
    warnings,
  };
}
