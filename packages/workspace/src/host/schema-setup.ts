import type { Workspace } from '../workspace.js';
import { applySchema } from './apply-schema.js';
import { applyFieldLabels, wantedLabels } from './field-labels.js';
import { mapOntoWorkspace, type SourceSchema, type WorkspaceMapping } from './kept-fields.js';

// The workspace made ready for the app's schema, the same way by every run that writes rows (a
// sync's start job, an app webhook's run): the schema mapped onto the workspace as it is
// (kept-fields.ts), what is missing created with the app's labels (apply-schema.ts), and the
// labels of fields made before brought up to date (field-labels.ts).

export async function readyForSchema(workspace: Workspace, args: SourceSchema): Promise<WorkspaceMapping> {
  const onto = await mapOntoWorkspace(workspace, args);
  await applySchema(workspace, onto.mapped, wantedLabels(args.schema, onto.mapped));
  // Labels of fields made before (or changed since): those just created carry theirs already.
  await applyFieldLabels(workspace, args.schema, onto.mapped);
  return onto;
}
