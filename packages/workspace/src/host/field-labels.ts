import type { SchemaResponse } from '@weft/core/protocol';
import { loadCatalog } from '../schema/catalog.js';
import type { Workspace } from '../workspace.js';
import { run } from './apply-schema.js';
import type { MappedType } from './schema-mapping.js';

// Field labels: the name an app gives each schema field ("Title", "Updated At") is what users see,
// while the workspace field is named from the field's id (`bookshelf/updated-at`). The data API
// has no meta key for a field's display name, so the host stores it as the field meta `ui/label`
// (a weft addition) with `schema.field/set-meta`; automations' templates and scripts use it.
// Only labels that are missing or changed are written, so a sync whose schema did not change
// writes nothing.

export const LABEL_KEY = 'ui/label';

/**
 * The label every mapped field should carry: the app's field name; a relation its `name`, its
 * partner its `targetName`.
 */
export function wantedLabels(schema: SchemaResponse, mapped: MappedType[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const put = (type: string, field: string, label: unknown) => {
    if (typeof label !== 'string' || label.trim() === '') return;
    if (!out.has(type)) out.set(type, new Map());
    out.get(type)!.set(field, label.trim());
  };
  for (const t of mapped) {
    const fields = schema[t.appType] ?? {};
    const title = t.titleField ? fields[t.titleField] : undefined;
    put(t.name, t.name.replace(/\/.*/, '/name'), title?.name ?? 'Name');
    for (const f of t.fields) {
      const field = fields[f.appId];
      if (f.kind !== 'relation') {
        put(t.name, f.name, field?.name);
        continue;
      }
      // As the service shows them: the relation is its `name` ("Author", not the field's "Author
      // Id"), the reverse side its `targetName`, and the hidden raw value the field's own name ("Author Id").
      const label = (field?.relation?.name || field?.name)?.trim();
      put(t.name, f.name, label);
      put(f.targetType, f.partnerName, field?.relation?.targetName);
      // Two fields of one type under one label would be ambiguous in templates and scripts.
      const raw = field?.name?.trim();
      put(t.name, f.rawName, raw === label ? `${label} (raw)` : raw);
    }
  }
  return out;
}

/** Sets `ui/label` on the app's fields where it is missing or differs from the app's field name. */
export async function applyFieldLabels(
  workspace: Workspace,
  schema: SchemaResponse,
  mapped: MappedType[],
): Promise<void> {
  const catalog = await loadCatalog(workspace.driver);
  const commands: Record<string, unknown>[] = [];
  for (const [typeName, labels] of wantedLabels(schema, mapped)) {
    const type = catalog.findType(typeName);
    if (!type) continue;
    for (const [fieldName, label] of labels) {
      const field = type.byName.get(fieldName);
      if (!field || field.meta[LABEL_KEY] === label) continue;
      commands.push({
        command: 'schema.field/set-meta',
        args: { 'holder-type': typeName, name: fieldName, key: LABEL_KEY, value: label },
      });
    }
  }
  await run(workspace, commands);
}
