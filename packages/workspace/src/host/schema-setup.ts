import type { SchemaResponse } from '@weft/core/protocol';
import type { Workspace } from '../workspace.js';
import { applySchema } from './apply-schema.js';
import { applyFieldLabels, wantedLabels } from './field-labels.js';
import { type KeptFields, mapOntoWorkspace } from './kept-fields.js';
import type { MappedType } from './schema-mapping.js';

// The workspace made ready for the app's schema, the same way by every run that writes rows (a
// sync's start job, an app webhook's run): the schema mapped onto the workspace as it is
// (kept-fields.ts), what is missing created with the app's labels (apply-schema.ts), and the
// labels of fields made before brought up to date (field-labels.ts).

export async function readyForSchema(
  workspace: Workspace,
  args: { namespace: string; sourceId: string; schema: SchemaResponse; types: string[] },
): Promise<{
  mapped: MappedType[];
  partners: Map<string, string>;
  kept: KeptFields;
  /** fields kept in their shape, fields whose type no longer matches */
  warnings: string[];
}> {
  const onto = await mapOntoWorkspace(workspace, args);
  const made = await applySchema(workspace, onto.mapped, wantedLabels(args.schema, onto.mapped));
  // Labels of fields made before (or changed since): those just created carry theirs already.
  await applyFieldLabels(workspace, args.schema, onto.mapped);
  return { ...onto, warnings: [...onto.warnings, ...made] };
}
