import { z } from 'zod';
import type { CommandContext } from '../commands/context.js';
import { badRequest, conflict } from '../errors.js';
import { createEntities } from '../entities/entity-store.js';
import { loadCatalog } from './catalog.js';
import { createField, createType } from './schema-store.js';
import { OPTION_TYPE_META, optionTypeFields } from './option-fields.js';
import { isUuid } from './values.js';

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

/** A state a workflow starts with: its name, looks, whether it ends the workflow, its id if chosen. */
export interface WorkflowState {
  id?: string;
  name: string;
  color?: string | null;
  icon?: string | null;
  final: boolean;
}

const DEFAULT_STATES: WorkflowState[] = [
  { name: 'Open', final: false },
  { name: 'In Progress', final: false },
  { name: 'Done', final: true },
];

/** The enum type holding the states of `typeName`'s workflow. */
export const stateTypeOf = (typeName: string) => `workflow/state_${typeName}`;

/**
 * Gives `typeName` its workflow (once): the state type, its states when it has none (`states`, or
 * weft's three), and the required `workflow/state` field, whose default (and every existing
 * entity's state) is `start` when given, else the first state.
 */
export async function installWorkflow(
  ctx: CommandContext,
  typeName: string,
  chosen: { states?: WorkflowState[]; start?: string } = {},
): Promise<void> {
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
      (chosen.states ?? DEFAULT_STATES).map((s, rank) => ({
        ...(s.id ? { 'svc/id': s.id } : {}),
        'enum/name': s.name,
        ...(s.color !== undefined ? { 'enum/color': s.color } : {}),
        ...(s.icon !== undefined ? { 'enum/icon': s.icon } : {}),
        'svc/rank': rank,
        [FINAL_FIELD]: s.final,
      })),
    );
    start = chosen.start ?? (made[0] as { 'svc/id': string } | null)?.['svc/id'];
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

const Install = z.object({
  type: z.string().min(1).max(400),
  states: z
    .array(
      z.looseObject({
        'svc/id': z.string().optional(),
        'enum/name': z.string().min(1).max(400),
        'enum/color': z.string().max(100).nullable().optional(),
        'enum/icon': z.string().max(100).nullable().optional(),
        // The state's category, as the service's page sends it; a Finished state ends the workflow.
        'workflow/Type': z.enum(['Not started', 'Started', 'Finished']).optional(),
        'workflow/Final': z.boolean().optional(),
      }),
    )
    .min(1)
    .max(100),
  'default-state-id': z.string().optional(),
});

/**
 * workflow/install, as the service's page sends it: a type's workflow with the states given (in
 * order; `workflow/Type` "Finished", or `workflow/Final`, for those that end it) and the state new
 * entities start in (`default-state-id`, else the first). A type with a workflow, or whose state
 * type exists already, is refused (409): its states are changed as entities.
 */
export async function installWorkflowCommand(ctx: CommandContext, args: unknown): Promise<void> {
  const parsed = Install.safeParse(args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(
      `workflow/install: ${issue?.path.join('.') || 'args'}: ${issue?.message}`,
      'invalid-args',
    );
  }
  const { type: typeName, states, 'default-state-id': start } = parsed.data;
  const chosen: WorkflowState[] = states.map((s) => {
    const id = s['svc/id'];
    if (id !== undefined && !isUuid(id))
      throw badRequest(`workflow/install: state id ${id} is not a uuid`, 'invalid-args');
    return {
      ...(id ? { id: id.toLowerCase() } : {}),
      name: s['enum/name'],
      ...(s['enum/color'] !== undefined ? { color: s['enum/color'] } : {}),
      ...(s['enum/icon'] !== undefined ? { icon: s['enum/icon'] } : {}),
      final: s['workflow/Final'] ?? s['workflow/Type'] === 'Finished',
    };
  });
  const ids = chosen.flatMap((s) => (s.id ? [s.id] : []));
  if (new Set(ids).size < ids.length)
    throw badRequest('workflow/install: a state id is given twice', 'invalid-args');
  if (start !== undefined && !ids.includes(start.toLowerCase()))
    throw badRequest(
      'workflow/install: default-state-id must be the id of one of the states',
      'invalid-args',
    );
  const catalog = await loadCatalog(ctx.tx);
  const type = catalog.type(typeName);
  if (type.byName.has(STATE_FIELD) || catalog.findType(stateTypeOf(type.name)))
    throw conflict(
      `${type.name} has a workflow already: change its states as entities of ${stateTypeOf(type.name)}`,
    );
  await installWorkflow(ctx, type.name, { states: chosen, ...(start ? { start: start.toLowerCase() } : {}) });
}
