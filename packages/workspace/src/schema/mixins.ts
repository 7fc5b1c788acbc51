import type { CommandContext } from '../commands/context.js';
import { badRequest } from '../errors.js';
import { AVATAR_MIXIN, AVATARS, COMMENT_TYPE, ensureCommentType, FILE_TYPE, USER_TYPE } from './builtins.js';
import { loadCatalog } from './catalog.js';
import { createField, setTypeMeta } from './schema-store.js';
import { installWorkflow, WORKFLOW_MIXIN } from './workflow.js';

// The mixins the service names, and the fields each one adds to a type.
const MIXIN_FIELDS: Record<string, { name: string; type: string; meta: Record<string, unknown> } | null> = {
  'svc/rank-mixin': { name: 'svc/rank', type: 'svc/rank', meta: {} },
  'Files/Files-mixin': { name: 'Files/Files', type: FILE_TYPE, meta: { 'svc/collection?': true } },
  'comments/comments-mixin': {
    name: 'comments/comments',
    type: COMMENT_TYPE,
    meta: { 'svc/collection?': true },
  },
  [AVATAR_MIXIN]: { name: AVATARS, type: FILE_TYPE, meta: { 'svc/collection?': true } },
  'assignments/assignments-mixin': {
    name: 'assignments/assignees',
    type: USER_TYPE,
    meta: { 'svc/collection?': true },
  },
  // Its states are a type of the type's own: see workflow.ts.
  [WORKFLOW_MIXIN]: null,
};

export async function installMixins(ctx: CommandContext, types: unknown): Promise<void> {
  const tx = ctx.tx;
  if (typeof types !== 'object' || types === null || Array.isArray(types)) {
    throw badRequest('types must be an object mapping type names to arrays of mixin names', 'invalid-args');
  }
  for (const [typeName, mixins] of Object.entries(types)) {
    if (!Array.isArray(mixins))
      throw badRequest(`types.${typeName} must be an array of mixin names`, 'invalid-args');
    for (const mixin of mixins) {
      if (typeof mixin !== 'string' || !(mixin in MIXIN_FIELDS)) {
        throw badRequest(
          `Unknown mixin ${JSON.stringify(mixin)}; known: ${Object.keys(MIXIN_FIELDS).join(', ')}`,
          'invalid-args',
        );
      }
      if (mixin === 'comments/comments-mixin') await ensureCommentType(tx);
      if (mixin === WORKFLOW_MIXIN) await installWorkflow(ctx, typeName);
      let catalog = await loadCatalog(tx);
      const type = catalog.type(typeName);
      const add = MIXIN_FIELDS[mixin];
      if (add && !type.byName.has(add.name)) {
        await createField(tx, catalog, {
          holderType: type.name,
          name: add.name,
          type: add.type,
          meta: add.meta,
        });
        catalog = await loadCatalog(tx);
      }
      const current = catalog.type(typeName);
      const installed = {
        ...((current.meta['app/mixins'] as Record<string, boolean> | undefined) ?? {}),
        [mixin]: true,
      };
      await setTypeMeta(tx, current.id, { 'app/mixins': installed });
    }
  }
}
