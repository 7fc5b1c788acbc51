import { forbidden } from '../errors.js';
import { loadCatalog } from '../schema/catalog.js';
import { installMixins } from '../schema/mixins.js';
import { installWorkflowCommand, WORKFLOW_MIXIN } from '../schema/workflow.js';
import { schemaObject } from '../schema/schema-object.js';
import { OPTION_TYPE_META, optionTypeFields } from '../schema/option-fields.js';
import {
  createField,
  createType,
  deleteField,
  deleteType,
  renameField,
  renameType,
  deleteFieldMeta,
  setFieldMeta,
  setTypeMetaKey,
  touchSchema,
} from '../schema/schema-store.js';
import type { CommandContext } from './context.js';

type Args = Record<string, unknown>;
type Handler = (ctx: CommandContext, args: Args) => Promise<unknown>;

const flag = (v: unknown) => v === true;

function adminOnly(ctx: CommandContext): void {
  if (!ctx.user.admin) throw forbidden('Only an admin can change the schema');
}

/** The commands that change the schema (allowed inside svc.schema/batch). */
export const SCHEMA_CHANGES: Record<string, Handler> = {
  'schema.type/create': async (ctx, a) => {
    adminOnly(ctx);
    await createType(ctx.tx, {
      name: a['svc/name'],
      id: a['svc/id'],
      meta: a['svc/meta'],
      fields: a['svc/fields'],
      description: a['svc/description'],
    });
    return 'ok';
  },
  'schema.type/rename': async (ctx, a) => {
    adminOnly(ctx);
    await renameType(ctx.tx, await loadCatalog(ctx.tx), a['from-name'], a['to-name']);
    return 'ok';
  },
  'schema.type/delete': async (ctx, a) => {
    adminOnly(ctx);
    await deleteType(
      ctx.tx,
      await loadCatalog(ctx.tx),
      a.name,
      flag(a['delete-entities?']),
      flag(a['delete-related-fields?']),
    );
    return 'ok';
  },
  'schema.field/create': async (ctx, a) => {
    adminOnly(ctx);
    await createField(ctx.tx, await loadCatalog(ctx.tx), {
      holderType: a['svc/holder-type'],
      name: a['svc/name'],
      type: a['svc/type'],
      meta: a['svc/meta'],
      id: a['svc/id'],
    });
    return 'ok';
  },
  'schema.field/rename': async (ctx, a) => {
    adminOnly(ctx);
    await renameField(ctx.tx, await loadCatalog(ctx.tx), a['holder-type'], a['from-name'], a['to-name']);
    return 'ok';
  },
  'schema.field/delete': async (ctx, a) => {
    adminOnly(ctx);
    const catalog = await loadCatalog(ctx.tx);
    // A relation is one set of links: deleting one field of a pair deletes both. A client deleting
    // both in one request (its second delete names the partner gone with the first) is done.
    ctx.removedPartners ??= new Set();
    const gone = ctx.removedPartners;
    const holderName = a['holder-type'];
    const holder = typeof holderName === 'string' ? catalog.findType(holderName) : undefined;
    if (
      holder &&
      typeof a.name === 'string' &&
      !holder.byName.has(a.name) &&
      gone.has(`${holder.name} ${a.name}`)
    )
      return 'ok';
    const field = holder ? catalog.field(holder, a.name) : undefined;
    const partner = field ? catalog.partner(field) : undefined;
    await deleteField(ctx.tx, catalog, a['holder-type'], a.name, flag(a['delete-values?']));
    if (partner) gone.add(`${catalog.typeById(partner.typeId).name} ${partner.name}`);
    return 'ok';
  },
  'schema.field/set-meta': async (ctx, a) => {
    adminOnly(ctx);
    await setFieldMeta(ctx.tx, await loadCatalog(ctx.tx), a['holder-type'], a.name, a.key, a.value);
    return 'ok';
  },
  'schema.field/delete-meta': async (ctx, a) => {
    adminOnly(ctx);
    await deleteFieldMeta(ctx.tx, await loadCatalog(ctx.tx), a['holder-type'], a.name, a.key);
    return 'ok';
  },
  'schema.type/set-meta': async (ctx, a) => {
    adminOnly(ctx);
    await setTypeMetaKey(ctx.tx, await loadCatalog(ctx.tx), a.name, a.key, a.value);
    return 'ok';
  },
  'schema.enum/create': async (ctx, a) => {
    adminOnly(ctx);
    await createType(ctx.tx, {
      name: a['svc/name'],
      id: a['svc/id'],
      meta: OPTION_TYPE_META,
      fields: optionTypeFields(),
    });
    await touchSchema(ctx.tx);
    return 'ok';
  },
  'svc.app/install-mixins': async (ctx, a) => {
    adminOnly(ctx);
    await installMixins(ctx, a.types);
    return 'ok';
  },
  // The workflow mixin with the states the caller chose, as the service's page installs it.
  'workflow/install': async (ctx, a) => {
    adminOnly(ctx);
    await installWorkflowCommand(ctx, a);
    await installMixins(ctx, { [String(a.type)]: [WORKFLOW_MIXIN] });
    return 'ok';
  },
};

export const schemaQuery: Handler = async (ctx, a) =>
  schemaObject(await loadCatalog(ctx.tx), ctx.user, a['with-description?'] === true);
