// Creates of one type as an in-process writer (the app host's sync) has them: the field names
// once, then each row's id and values in that order, instead of an entity object (and a command
// object around it) per row that the create path would take apart again. Each value gets the same
// checks as an entity's; only the reading of names and objects per row goes. The form is reached
// through a symbol-keyed argument of `svc.entity/create`, which no JSON body can carry: callers of
// the data API send entities as they always did.

/** Rows of one type, their values in the order of `names`. */
export interface CreateRows {
  /** field names, as an entity would give them (no `svc/id`: the ids are in `ids`) */
  readonly names: readonly string[];
  /** each row's `svc/id` */
  readonly ids: readonly string[];
  /** each row's values, in the order of `names` */
  readonly rows: readonly (readonly unknown[])[];
}

/** The argument of `svc.entity/create` that holds CreateRows (in place of `entity`). */
export const CREATE_ROWS: unique symbol = Symbol('weft.createRows');

/** A `svc.entity/create` command of many rows at once. */
export function createRowsCommand(type: string, rows: CreateRows): Record<string, unknown> {
  return { command: 'svc.entity/create', args: { type, [CREATE_ROWS]: rows } };
}

/** The rows of a command made by createRowsCommand, else undefined. */
export function createRowsOf(command: unknown): CreateRows | undefined {
  if (typeof command !== 'object' || command === null) return undefined;
  const { command: name, args } = command as { command?: unknown; args?: unknown };
  if (name !== 'svc.entity/create' || typeof args !== 'object' || args === null) return undefined;
  return (args as { [CREATE_ROWS]?: CreateRows })[CREATE_ROWS];
}
