import type { Principal } from '../auth/principal.js';
import { enqueueAutomationRuns } from '../automations/store.js';
import { clip } from '@weft/core/redact';
import { type Driver, sqlState } from '../db/driver.js';
import { currentRequest } from '../db/request-scope.js';
import { checkRequest } from '../db/statement-stop.js';
import { createRowsOf } from '../entities/create-rows.js';
import { deleteEntities, deleteEntity } from '../entities/delete-entities.js';
import { batchCreate, batchCreateOrUpdate, batchDelete } from '../entities/entity-batches.js';
import { changeCollection, changeCollections } from '../entities/change-collections.js';
import { COPY_MIN_ROWS, createEntities } from '../entities/entity-store.js';
import { updateEntities, updateEntity } from '../entities/update-entities.js';
import { badRequest, WorkspaceError } from '../errors.js';
import { type Catalog, lastCatalog, loadCatalog } from '../schema/catalog.js';
import {
  deleteSpace,
  installSpace,
  saveSpace,
  uninstallSpace,
  updateSpace,
} from '../schema/space-commands.js';
import { enqueueDeliveries } from '../webhooks/outbox.js';
import { answersInJson } from './answer-json.js';
import { availableApps, typeCapabilities } from './capabilities.js';
import { entityQuery, uncheckedQuery } from './entity-query.js';
import type { RequestBudgets } from './budgets.js';
import { type CommandContext, RowsNotExact, RunAgainOneByOne, StaleCatalog } from './context.js';
import { listeners } from './listeners.js';
import { SCHEMA_CHANGES, schemaQuery } from './schema-commands.js';

// POST /api/commands: each top-level command runs in its own transaction, in order, and reports
// {success: true, result} or {success: false, error: {message, code}} (the HTTP answer's shape is
// result-shape.ts's); a failure does not stop the
// commands after it. svc.command/batch and svc.schema/batch run inside their caller's transaction,
// so a failing inner command rolls the whole batch back.

type Args = Record<string, unknown>;
type Handler = (ctx: CommandContext, args: Args) => Promise<unknown>;

export type CommandResult =
  | { success: true; result: unknown }
  | { success: false; error: { message: string; code: string; status: number } };

const isObject = (v: unknown): v is Args => typeof v === 'object' && v !== null && !Array.isArray(v);

const ENTITY_COMMANDS: Record<string, Handler> = {
  'svc.entity/query': async (ctx, a) =>
    entityQuery(ctx.tx, await loadCatalog(ctx.tx), a, { user: ctx.user, budgets: ctx.budgets }),
  'svc.entity/create': async (ctx, a) => {
    const [result] = await createEntities(ctx, await loadCatalog(ctx.tx), a.type, [a.entity]);
    return result;
  },
  'svc.entity/update': async (ctx, a) => updateEntity(ctx, await loadCatalog(ctx.tx), a.type, a.entity),
  'svc.entity/delete': async (ctx, a) => deleteEntity(ctx, await loadCatalog(ctx.tx), a.type, a.entity),
  'svc.entity/add-collection-items': async (ctx, a) =>
    changeCollection(ctx, await loadCatalog(ctx.tx), a, 'add'),
  'svc.entity/remove-collection-items': async (ctx, a) =>
    changeCollection(ctx, await loadCatalog(ctx.tx), a, 'remove'),
  'svc.entity.batch/create': async (ctx, a) => batchCreate(ctx, await loadCatalog(ctx.tx), a),
  'svc.entity.batch/delete': async (ctx, a) => batchDelete(ctx, await loadCatalog(ctx.tx), a),
  'svc.entity.batch/create-or-update': async (ctx, a) =>
    batchCreateOrUpdate(ctx, await loadCatalog(ctx.tx), a),
  'svc.type/query-user-capabilities': typeCapabilities,
  'svc.app/get-available-apps': (ctx) => availableApps(ctx),
  'svc.app/save': saveSpace,
  'svc.app/install': installSpace,
  'svc.app/update': updateSpace,
  'svc.app/uninstall': uninstallSpace,
  'svc.app/delete': deleteSpace,
};

function parseCommand(raw: unknown): { command: string; args: Args; correlationId?: string } {
  if (!isObject(raw) || typeof raw.command !== 'string') {
    throw badRequest(
      'A command is an object {command: string, args?: object, correlationId?: string}',
      'invalid-args',
    );
  }
  if (raw.args !== undefined && raw.args !== null && !isObject(raw.args)) {
    throw badRequest('args must be an object', 'invalid-args');
  }
  const correlationId = typeof raw.correlationId === 'string' ? raw.correlationId : undefined;
  return {
    command: raw.command,
    args: (raw.args as Args | undefined) ?? {},
    ...(correlationId ? { correlationId } : {}),
  };
}

async function runInner(ctx: CommandContext, raw: unknown, schemaOnly: boolean): Promise<unknown> {
  const { command, args } = parseCommand(raw);
  if (schemaOnly && !SCHEMA_CHANGES[command]) {
    throw badRequest(
      `${command} is not a schema command and cannot run inside svc.schema/batch`,
      'invalid-args',
    );
  }
  return dispatch(ctx, command, args);
}

async function runBatch(ctx: CommandContext, args: Args, schemaOnly: boolean): Promise<unknown[]> {
  if (!Array.isArray(args.commands)) throw badRequest('commands must be an array', 'invalid-args');
  const { unchecked, answerJson, ...outer } = ctx;
  const inner: CommandContext = { ...outer, depth: ctx.depth + 1 };
  const results: unknown[] = [];
  const commands = args.commands;
  for (let i = 0; i < commands.length; i++) {
    let at = i;
    try {
      // Consecutive creates of one type become one multi-row insert; so do the rows of an
      // in-process caller's create of many rows (see create-rows.ts).
      const rows = schemaOnly ? undefined : createRowsOf(commands[i]);
      const run = schemaOnly || rows ? 1 : createRun(commands, i);
      if (run > 1 || rows) {
        const first = commands[i] as Args;
        const type = (first.args as Args).type;
        const entities = rows ?? commands.slice(i, i + run).map((c) => ((c as Args).args as Args).entity);
        const size = rows ? rows.rows.length : run;
        at = -1;
        const last = ctx.depth === 0 && i + run === commands.length;
        // A long run that starts the command checks an unchecked catalog with its own first statement.
        const early =
          i === 0 && unchecked !== undefined && ctx.tx.copyIn !== undefined && size >= COPY_MIN_ROWS;
        const runCtx: CommandContext = { ...inner, ...(last ? { endsCommand: true } : {}) };
        if (early) runCtx.unchecked = unchecked;
        const catalog = early ? unchecked : await loadCatalog(ctx.tx);
        // A run that is the whole batch: its results are the batch's, as they are.
        if (i === 0 && run === commands.length) {
          if (answerJson) runCtx.answerJson = true;
          return await createEntities(runCtx, catalog, type, entities);
        }
        results.push(...(await createEntities(runCtx, catalog, type, entities)));
        i += run - 1;
        continue;
      }
      // So are consecutive updates, deletes, or changes of one collection field, of one type
      // (update-entities.ts, delete-entities.ts, change-collections.ts).
      const together = schemaOnly ? undefined : sameTypeRuns(commands, i);
      if (together) {
        const args = commands.slice(i, i + together.n).map((c) => (c as Args).args as Args);
        at = -1;
        results.push(...(await together.make(inner, await loadCatalog(ctx.tx), args)));
        i += together.n - 1;
        continue;
      }
      results.push(await runInner(inner, commands[i], schemaOnly));
    } catch (error) {
      if (error instanceof WorkspaceError) {
        // In a run made together (creates, updates, deletes, collection changes) the failing
        // command's position in the run comes with the error; in a create of rows, the row's.
        const many = at < 0 && createRowsOf(commands[i]) !== undefined;
        const k = at >= 0 || many ? i : i + (error.index ?? 0);
        const name = isObject(commands[k]) ? String((commands[k] as Args).command) : 'command';
        const row = many && error.index !== undefined ? ` row ${error.index}` : '';
        throw new WorkspaceError(
          error.status,
          error.code,
          `commands[${k}] (${name})${row}: ${error.message}`,
        );
      }
      throw error;
    }
  }
  return results;
}

const createRun = (commands: unknown[], i: number) => sameTypeRun(commands, i, 'svc.entity/create');

type MakeRun = (ctx: CommandContext, catalog: Catalog, args: Args[]) => Promise<unknown[]>;
const entitiesOf = (args: Args[]) => args.map((a) => a.entity);
const RUNS: Array<[string, MakeRun]> = [
  [
    'svc.entity/update',
    (ctx, catalog, args) => updateEntities(ctx, catalog, args[0]!.type, entitiesOf(args)),
  ],
  [
    'svc.entity/delete',
    (ctx, catalog, args) => deleteEntities(ctx, catalog, args[0]!.type, entitiesOf(args)),
  ],
  ['svc.entity/add-collection-items', (ctx, catalog, args) => changeCollections(ctx, catalog, args, 'add')],
  [
    'svc.entity/remove-collection-items',
    (ctx, catalog, args) => changeCollections(ctx, catalog, args, 'remove'),
  ],
];

/** The commands made together with the i-th: a run of two or more of one kind, on one type (and field). */
function sameTypeRuns(commands: unknown[], i: number): { n: number; make: MakeRun } | undefined {
  for (const [command, make] of RUNS) {
    const n = sameTypeRun(commands, i, command);
    if (n > 1) return { n, make };
  }
  return undefined;
}

/**
 * How many commands from the i-th are `command`s of one type, one after another (at least 1); of
 * one collection field too, for collection changes.
 */
function sameTypeRun(commands: unknown[], i: number, command: string): number {
  const isOne = (c: unknown): c is Args =>
    isObject(c) &&
    c.command === command &&
    isObject(c.args) &&
    typeof c.args.type === 'string' &&
    createRowsOf(c) === undefined;
  const first = commands[i];
  if (!isOne(first)) return 1;
  const { type, field } = first.args as Args;
  let n = 1;
  while (i + n < commands.length) {
    const next = commands[i + n];
    if (!isOne(next) || (next.args as Args).type !== type || (next.args as Args).field !== field) break;
    n++;
  }
  return n;
}

export async function dispatch(ctx: CommandContext, command: string, args: Args): Promise<unknown> {
  // A request that was stopped (its client left, its time ran out) starts no more commands.
  checkRequest();
  if (ctx.depth > 8) throw badRequest('Batches nest at most 8 deep', 'invalid-args');
  if (command === 'svc.command/batch') return runBatch(ctx, args, false);
  if (command === 'svc.schema/batch') {
    // Answered "ok" as a whole, as the service's API docs show it (each schema command answers
    // "ok" itself, so a list of them says nothing more); a client checks `result === 'ok'`.
    await runBatch(ctx, args, true);
    return 'ok';
  }
  if (command === 'svc.schema/query') return schemaQuery(ctx, args);
  const handler = SCHEMA_CHANGES[command] ?? ENTITY_COMMANDS[command];
  if (!handler) throw badRequest(`Unknown command ${clip(JSON.stringify(command))}`, 'unknown-command');
  return handler(ctx, args);
}

/** Turns anything thrown by a command into its failure result; bad input never becomes a 500. */
export function failure(error: unknown, log?: (error: unknown) => void): CommandResult {
  if (error instanceof WorkspaceError) {
    return { success: false, error: { message: error.message, code: error.code, status: error.status } };
  }
  const state = sqlState(error);
  // Data exceptions, constraint violations and program limits come from values the caller sent.
  if (state && ['22', '23', '42', '54'].includes(state.slice(0, 2))) {
    return {
      success: false,
      error: { message: (error as Error).message, code: 'invalid-value', status: 400 },
    };
  }
  log?.(loggable(error));
  return { success: false, error: { message: 'Internal error', code: 'internal', status: 500 } };
}

/**
 * What the log gets of an unexpected error: its name, clipped message, SQLSTATE and stack, but
 * not the statement and parameters a database error carries (PGlite's has both: a query of
 * 70,000 parameters would print them all).
 */
export function loggable(error: unknown): unknown {
  if (!(error instanceof Error)) return clip(String(error), 2000);
  const copy = new Error(clip(error.message, 2000));
  copy.name = error.name;
  copy.stack = clip(error.stack ?? '', 4000);
  const state = sqlState(error);
  if (state) Object.assign(copy, { code: state });
  return copy;
}

const READ_ONLY = new Set([
  'svc.entity/query',
  'svc.schema/query',
  'svc.type/query-user-capabilities',
  'svc.app/get-available-apps',
]);

/**
 * What commands may have queued for the background workers (webhook deliveries, automation
 * runs), so that only those workers are woken afterwards; the flags may be set by a command
 * whose transaction then failed, never left unset when something was queued.
 */
export interface Queued {
  deliveries: boolean;
  automations: boolean;
}

/** Runs one top-level command in its own transaction, retrying on serialization conflicts. */
export async function executeOne(
  driver: Driver,
  raw: unknown,
  user: Principal,
  log?: (error: unknown) => void,
  queued: Queued = { deliveries: false, automations: false },
  options: ExecuteOptions & { answerJson?: boolean } = {},
): Promise<CommandResult> {
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(raw);
  } catch (error) {
    return failure(error, log);
  }
  // A top-level read is one statement (after the catalog check): no transaction round trips. A
  // query is often that statement alone (entity-query.ts).
  if (READ_ONLY.has(parsed.command)) {
    try {
      let read: unknown[] | undefined;
      if (parsed.command === 'svc.entity/query') {
        // As dispatch does: a request that was stopped starts no more commands.
        checkRequest();
        read = await uncheckedQuery(driver, parsed.args, { user, budgets: options.budgets });
      }
      if (read !== undefined) return { success: true, result: read };
      return {
        success: true,
        result: await dispatch(
          {
            tx: driver,
            user,
            effects: [],
            depth: 0,
            ...(options.budgets ? { budgets: options.budgets } : {}),
          },
          parsed.command,
          parsed.args,
        ),
      };
    } catch (error) {
      return failure(error, log);
    }
  }
  // Until a StaleCatalog, the last loaded catalog may be used unchecked (CommandContext.unchecked)
  // by a batch, the one command that hands it on (to a long run of creates that starts it).
  let stale = false;
  let checkFirst = false;
  let oneByOne = false;
  for (let attempt = 0; ; attempt++) {
    try {
      const unchecked = stale || parsed.command !== 'svc.command/batch' ? undefined : lastCatalog();
      const result = await driver.transaction(async (tx) => {
        const ctx: CommandContext = {
          tx,
          user,
          effects: [],
          depth: 0,
          listening: new Map(),
          ...(options.budgets ? { budgets: options.budgets } : {}),
          ...(unchecked ? { unchecked } : {}),
          ...(options.answerJson ? { answerJson: true } : {}),
        };
        if (options.createResults === false) ctx.createResults = false;
        if (checkFirst) ctx.checkFirst = true;
        if (oneByOne) ctx.oneByOne = true;
        const value = await dispatch(ctx, parsed.command, parsed.args);
        // A bulk create that ended the command may have committed already (endsCommand): it does
        // so only when every changed type is known here and nothing listens, so nothing below
        // runs a statement then.
        if (ctx.effects.length > 0) {
          const listening = await listeners(tx, ctx.effects, ctx.listening);
          if (
            listening.webhooks &&
            (await enqueueDeliveries(tx, ctx.effects, user, parsed.correlationId)) > 0
          )
            queued.deliveries = true;
          if (listening.automations) {
            await enqueueAutomationRuns(tx, ctx.effects, user);
            queued.automations = true;
          }
        }
        return value;
      });
      return { success: true, result };
    } catch (error) {
      if (error instanceof StaleCatalog && !stale) {
        stale = true;
        continue;
      }
      if (error instanceof RowsNotExact && !checkFirst) {
        checkFirst = true;
        continue;
      }
      if (error instanceof RunAgainOneByOne && !oneByOne) {
        oneByOne = true;
        continue;
      }
      const state = sqlState(error);
      if ((state === '40001' || state === '40P01') && attempt < 3) continue;
      return failure(error, log);
    }
  }
}

/** How commands run for an in-process caller (see CommandContext.createResults). */
export interface ExecuteOptions {
  createResults?: boolean;
  /** a request's bounds on its queries (the HTTP API's; in-process callers have none) */
  budgets?: RequestBudgets;
}

export async function executeCommands(
  driver: Driver,
  commands: unknown,
  user: Principal,
  log?: (error: unknown) => void,
  queued?: Queued,
  options?: ExecuteOptions,
): Promise<CommandResult[]> {
  if (!Array.isArray(commands)) throw badRequest('The body must be an array of commands');
  const results: CommandResult[] = [];
  const each = answersInJson(commands) ? { ...options, answerJson: true } : options;
  const scope = currentRequest();
  for (const c of commands) {
    // Once the request is stopped, the rest fail as it did without opening a transaction each.
    if (scope?.signal.aborted) results.push(failure(scope.signal.reason, log));
    else results.push(await executeOne(driver, c, user, log, queued, each));
  }
  return results;
}
