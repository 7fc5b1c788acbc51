import type { SchemaResponse } from '@weft/core/protocol';
import { type Catalog, DOCUMENT_TYPE, type FieldDef, loadCatalog } from '../schema/catalog.js';
import { FILE_TYPE } from '../schema/builtins.js';
import type { Workspace } from '../workspace.js';
import { existingPartners } from './apply-schema.js';
import { enumTypeName, type MappedField, type MappedType, mapSchema } from './schema-mapping.js';

// A field the workspace made before in another shape than the app's schema now asks for keeps the
// shape it has, and the app's values are written as that shape takes them: nothing stored is
// dropped or converted behind the user's back, and the sync goes on. Such a field is, say, a text
// field where the app now sends a number, files or a multi-select (an earlier weft stored both as
// text), a select the app turned from single to multi or back, or rich text that became plain.
// Every job of a run maps the app's rows with the same shapes: the start job reads them and the
// run's plan carries them. Relations keep whatever they are (applySchema warns of a change).

/** The shape a field keeps: a primitive type, a single- or multi-select, rich text or files. */
export type KeptShape = { primitive: string } | 'single' | 'multi' | 'rich' | 'files';

/** Workspace type -> field -> the shape it keeps, for the fields whose shape differs only. */
export type KeptFields = Record<string, Record<string, KeptShape>>;

/** The shape the app's schema asks of a mapped field; undefined for relations. */
function wantedShape(f: MappedField): KeptShape | undefined {
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
function existingShape(catalog: Catalog, f: FieldDef, enumType: string): KeptShape | undefined {
  if (f.kind === 'primitive') return { primitive: f.fieldType };
  const target = catalog.target(f).name;
  if (target === DOCUMENT_TYPE) return 'rich';
  if (target === FILE_TYPE && f.kind === 'many') return 'files';
  if (target === enumType) return f.kind === 'many' ? 'multi' : 'single';
  return undefined;
}

const same = (a: KeptShape, b: KeptShape) =>
  typeof a === 'object' && typeof b === 'object' ? a.primitive === b.primitive : a === b;

const described = (s: KeptShape) =>
  typeof s === 'object'
    ? s.primitive
    : s === 'single' || s === 'multi'
      ? `a ${s}-select`
      : s === 'rich'
        ? 'rich text'
        : 'files';

/** The fields of `mapped` the workspace has in another shape, with a warning for each. */
export async function keptFields(
  workspace: Workspace,
  mapped: MappedType[],
): Promise<{ kept: KeptFields; warnings: string[] }> {
  const catalog = await loadCatalog(workspace.driver);
  const kept: KeptFields = {};
  const warnings: string[] = [];
  for (const t of mapped) {
    const holder = catalog.findType(t.name);
    if (!holder) continue;
    for (const f of t.fields) {
      const have = holder.byName.get(f.name);
      const wanted = wantedShape(f);
      if (!have || !wanted) continue;
      const shape = existingShape(catalog, have, enumTypeName(f.name, t.name));
      if (!shape || same(shape, wanted)) continue;
      kept[t.name] = { ...kept[t.name], [f.name]: shape };
      warnings.push(
        `${t.name}: field ${f.name} is ${described(shape)}, the app now sends ${described(wanted)}; kept as it is, the values read as it takes them`,
      );
    }
  }
  return { kept, warnings };
}

/**
 * The app's schema mapped onto the workspace as it is, as every run maps it (a sync's start job,
 * an app webhook's run, a Verify): reverse fields made before keep their names (`partners`, by
 * relation id, see mapSchema), and fields made in another shape keep theirs (`kept`).
 */
export async function mapOntoWorkspace(
  workspace: Workspace,
  args: { namespace: string; sourceId: string; schema: SchemaResponse; types: string[] },
): Promise<{
  mapped: MappedType[];
  partners: Map<string, string>;
  kept: KeptFields;
  warnings: string[];
}> {
  const map = (partners?: ReadonlyMap<string, string>, kept?: KeptFields) =>
    mapSchema(args.namespace, args.sourceId, args.schema, args.types, partners, kept);
  const partners = await existingPartners(workspace, map());
  const named = map(partners);
  const { kept, warnings } = await keptFields(workspace, named);
  return {
    mapped: Object.keys(kept).length > 0 ? map(partners, kept) : named,
    partners,
    kept,
    warnings,
  };
}
