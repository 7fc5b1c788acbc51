import { WorkspaceError } from '../errors.js';

// What one request to the data API may ask of the workspace. Every limit is an option of the
// workspace (and an environment variable of `weft workspace`); the defaults leave room for what a
// normal client does, a bulk write of a few thousand creates in one svc.command/batch included.
// A request over a limit gets a 4xx {message, code: 'over-budget'} whose message names the limit.

export interface RequestBudgets {
  /** commands in one request, the commands inside batches included */
  maxCommands: number;
  /** the size of one query: filters, selected fields, path steps, parameters and joins together */
  maxQueryNodes: number;
  /**
   * q/contains and q/starts-with in one query: each reads the text of every row it is tried on
   * (measured: ten of them over 100,000 rows take 3.5 s on either engine)
   */
  maxTextFilters: number;
  /** field names in one path of a query */
  maxPathLength: number;
  /** rows one svc.entity/query may answer (q/limit above it is refused, q/no-limit is cut off at it) */
  maxResultRows: number;
  /** Postgres: longest a single statement of a request may run; 0: no limit (PGlite cannot stop one) */
  statementTimeoutMs: number;
  /** longest a request may keep working; later statements and commands are refused; 0: no limit */
  requestTimeoutMs: number;
}

export const DEFAULT_BUDGETS: RequestBudgets = {
  maxCommands: 10_000,
  maxQueryNodes: 1_000,
  maxTextFilters: 16,
  maxPathLength: 16,
  maxResultRows: 50_000,
  statementTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
};

/** The environment variable of each budget. */
export const BUDGET_ENV: Record<keyof RequestBudgets, string> = {
  maxCommands: 'WEFT_MAX_COMMANDS',
  maxQueryNodes: 'WEFT_MAX_QUERY_NODES',
  maxTextFilters: 'WEFT_MAX_TEXT_FILTERS',
  maxPathLength: 'WEFT_MAX_PATH_LENGTH',
  maxResultRows: 'WEFT_MAX_RESULT_ROWS',
  statementTimeoutMs: 'WEFT_STATEMENT_TIMEOUT_MS',
  requestTimeoutMs: 'WEFT_REQUEST_TIMEOUT_MS',
};

/** Budgets from WEFT_* variables; those not set keep their defaults. Throws on a bad value. */
export function budgetsFromEnv(env: NodeJS.ProcessEnv): Partial<RequestBudgets> {
  const out: Partial<RequestBudgets> = {};
  for (const [key, name] of Object.entries(BUDGET_ENV) as Array<[keyof RequestBudgets, string]>) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    const timeout = key === 'statementTimeoutMs' || key === 'requestTimeoutMs';
    if (!Number.isSafeInteger(value) || value < (timeout ? 0 : 1))
      throw new Error(`${name} must be a whole number${timeout ? ' of milliseconds (0: off)' : ' above 0'}`);
    out[key] = value;
  }
  return out;
}

export const overBudget = (message: string, status = 400) =>
  new WorkspaceError(status, 'over-budget', message);

/**
 * Checks a request's body before any of it runs: the number of commands, batches' included. Only
 * commands are walked (a batch's commands are commands themselves; no other value holds any), so a
 * bulk write's entity values cost nothing here; how deep a body nests is checked once, on its raw
 * bytes before parsing (http/body-parsers.ts). One pass without recursion.
 */
export function checkBody(body: unknown, budgets: RequestBudgets): void {
  if (!Array.isArray(body)) return;
  const max = budgets.maxCommands;
  const tooMany = () =>
    overBudget(`More than ${max} commands in one request (maxCommands): send them in several requests`, 413);
  if (body.length > max) throw tooMany();
  const stack: unknown[] = [...body];
  let commands = 0;
  while (stack.length > 0) {
    const value = stack.pop();
    commands++;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const { command, args } = value as { command?: unknown; args?: unknown };
    if (typeof command !== 'string' || !command.endsWith('/batch')) continue;
    if (typeof args !== 'object' || args === null) continue;
    const inner = (args as { commands?: unknown }).commands;
    if (!Array.isArray(inner)) continue;
    // Every command on the stack is counted in the end: a batch too long fails before it is copied.
    if (commands + stack.length + inner.length > max) throw tooMany();
    for (const c of inner) stack.push(c);
  }
}
