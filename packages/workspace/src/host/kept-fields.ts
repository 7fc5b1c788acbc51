import type { SchemaResponse } from '@weft/core/protocol';
import { loadCatalog } from '../schema/catalog.js';
import type { Workspace } from '../workspace.js';
import { type MappedType, mapSchema } from './schema-mapping.js';

// A field the workspace made before in another shape than the app's schema now asks for keeps the
// shape it has, and its values are written as that shape takes them: nothing stored is dropped or
// converted behind the user's back. Such a field is a text field where the app now sends files or
// a multi-select (an earlier weft stored both as text, or the app declared the field text then),
// or a select that the app turned from single to multi or back. Every job of a run maps the app's
// rows with the same shapes: the start job reads them and the run's plan carries them.

/** The shape a field keeps: text (the values joined), or a single- or multi-select. */
export type KeptShape = 'text' | 'single' | 'multi';

/** Workspace type -> field -> the shape it keeps, for the fields whose shape differs only. */
export type KeptFields = Record<string, Record<string, KeptShape>>;

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
    const keep = (field: string, shape: KeptShape, warning: string) => {
      kept[t.name] = { ...kept[t.name], [field]: shape };
      warnings.push(`${t.name}: field ${field} ${warning}`);
    };
    for (const f of t.fields) {
      if (f.kind !== 'files' && f.kind !== 'enum') continue;
      const have = holder.byName.get(f.name);
      if (!have) continue;
      const text = have.kind === 'primitive' && have.fieldType === 'svc/text';
      if (f.kind === 'files' && text)
        keep(f.name, 'text', 'holds file URLs as text; files are stored for new fields only');
      else if (f.kind === 'enum' && f.many && text)
        keep(f.name, 'text', 'holds the options as text; multi-selects are made for new fields only');
      else if (f.kind === 'enum' && have.targetTypeId !== null && catalog.target(have).name === f.enumType) {
        const many = have.kind === 'many';
        if (many !== (f.many === true))
          keep(
            f.name,
            many ? 'multi' : 'single',
            `is a ${many ? 'multi' : 'single'}-select, the app now sends a ${f.many ? 'multi' : 'single'}-select; kept as it is`,
          );
      }
    }
  }
  return { kept, warnings };
}

/**
 * The app's schema mapped onto the workspace as it is: mapSchema's types, with the fields the
 * workspace made in another shape kept in theirs.
 */
export async function mapOntoWorkspace(
  workspace: Workspace,
  args: {
    namespace: string;
    sourceId: string;
    schema: SchemaResponse;
    types: string[];
    partners?: ReadonlyMap<string, string>;
  },
): Promise<{ mapped: MappedType[]; kept: KeptFields; warnings: string[] }> {
  const map = (kept?: KeptFields) =>
    mapSchema(args.namespace, args.sourceId, args.schema, args.types, args.partners, kept);
  const first = map();
  const { kept, warnings } = await keptFields(workspace, first);
  return { mapped: Object.keys(kept).length > 0 ? map(kept) : first, kept, warnings };
}
