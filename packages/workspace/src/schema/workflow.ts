import type { CommandContext } from '../commands/context.js';
import { createEntities } from '../entities/entity-store.js';
import { loadCatalog } from './catalog.js';
import { createField, createType } from './schema-store.js';
import { OPTION_TYPE_META, optionTypeFields } from './option-fields.js';

// The workflow mixin, as the service's schema has it: the type gets a required to-one field
// `workflow/state` onto an enum type of its own, `workflow/state_<type>`, whose entities are the
// states (`enum/name` the title, `enum/color`, `enum/icon`, `svc/rank` their order, `workflow/Final` true for
// the states that end the workflow). Clients read `["workflow/state", "enum/name"]` and filter on
// `["workflow/state", "workflow/Final"]`. The states a new workflow starts with are weft's choice
// (the service's API docs do not name them): Open (where new entities start), In Progress, Done
// (final). Entities the type already has start in Open.

export const WORKFLOW_MIXIN = 'workflow/workflow';
export const STATE_FIELD = 'workflow/state';
export const FINAL_FIELD = 'workflow/Final';

const DEFAULT_STATES: Array<{ name: string; final: boolean }> = [
  { name: 'Open', final: false },
  { name: 'In Progress', final: false },
  { name: 'Done', final: true },
];

/** The enum type holding the states of `typeName`'s workflow. */
export const stateTypeOf = (typeName: string) => `workflow/state_${typeName}`;

export async function installWorkflow(ctx: CommandContext, typeName: string): Promise<void> {
  const tx = ctx.tx;
  let catalog = await loadCatalog(tx);
  const type = catalog.type(typeName);
  if (type.byName.has(STATE_FIELD)) return;
  const statesName = stateTypeOf(type.name);
  if (!catalog.findType(statesName)) {
    await createType(tx, {
      name: statesName,
      meta: OPTION_TYPE_META,
      fields: optionTypeFields({
        'svc/name': FINAL_FIELD,
        'svc/type': 'svc/bool',
        'svc/meta': { 'svc/default-value': false, 'svc/required?': true },
      }),
    });
    catalog = await loadCatalog(tx);
  } else if (!catalog.type(statesName).byName.has(FINAL_FIELD)) {
    // A state type made by hand before (schema.enum/create): it gains the flag.
    await createField(tx, catalog, { holderType: statesName, name: FINAL_FIELD, type: 'svc/bool', meta: {} });
    catalog = await loadCatalog(tx);
  }
  const states = catalog.type(statesName);
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM ${states.table} ORDER BY created, id LIMIT 1`,
  );
  let start = rows[0]?.id;
  if (start === undefined) {
    const made = await createEntities(
      ctx,
      catalog,
      statesName,
      DEFAULT_STATES.map((s, rank) => ({ 'enum/name': s.name, 'svc/rank': rank, [FINAL_FIELD]: s.final })),
    );
    start = (made[0] as { 'svc/id': string } | null)?.['svc/id'];
    if (start === undefined) {
      const first = await tx.query<{ id: string }>(
        `SELECT id FROM ${states.table} ORDER BY created, id LIMIT 1`,
      );
      start = first.rows[0]!.id;
    }
  }
  const field = await createField(tx, catalog, {
    holderType: type.name,
    name: STATE_FIELD,
    type: statesName,
    meta: { 'svc/required?': true, 'svc/default-value': { 'svc/id': start }, 'svc/type-component?': true },
  });
  if (field.storage.kind === 'column')
    await tx.query(`UPDATE ${type.table} SET ${field.storage.col} = $1 WHERE ${field.storage.col} IS NULL`, [
      start,
    ]);
}
