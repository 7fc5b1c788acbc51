import type { Principal } from '../auth/principal.js';
import { type Queryable, sqlState } from '../db/driver.js';
import { badRequest } from '../errors.js';
import { type CompiledQuery, compileQuery } from '../query/compile-query.js';
import { type Catalog, lastCatalog, schemaToken } from '../schema/catalog.js';
import { overBudget, type RequestBudgets } from './budgets.js';

// svc.entity/query: the query object compiled against a catalog and run as one statement.
//
// A top-level query is answered in one round trip where it can be (uncheckedQuery): compiled
// against the catalog this process loaded last, without asking first whether the schema changed
// since, and guarded in the same statement by the schema token that catalog was loaded at. Rows
// mean the guard held, so the answer is the current schema's. No rows may mean a changed schema:
// the token is then asked for, as the checked way always asks for it first, and the query made
// the checked way if it did change. Asking first was one round trip of two for every read.

type Args = Record<string, unknown>;

interface QueryOptions {
  user: Principal;
  budgets?: RequestBudgets | undefined;
}

/** The statement of the query `args` (`{query, params?}`) against `catalog`; `token` guards it. */
function compile(catalog: Catalog, args: Args, options: QueryOptions, token?: string): CompiledQuery {
  // The service's clients send params null, or none, for a query without parameters.
  const params = args.params ?? undefined;
  if (params !== undefined && (typeof params !== 'object' || Array.isArray(params)))
    throw badRequest('params must be an object', 'invalid-args');
  return compileQuery(
    {
      catalog,
      user: options.user,
      params: params as Record<string, unknown> | undefined,
      budgets: options.budgets,
      ...(token !== undefined ? { token } : {}),
    },
    args.query,
  );
}

/** The statement's answer, refused when it is longer than the request's budget allows. */
async function run(q: Queryable, { sql, values, cap }: CompiledQuery): Promise<unknown[]> {
  const { rows } = await q.query<{ r: unknown }>(sql, values);
  if (cap !== undefined && rows.length > cap)
    throw overBudget(
      `The query matches more than ${cap} rows (maxResultRows): read in pages of q/limit and q/offset`,
    );
  return rows.map((r) => r.r);
}

/** The entities `args` asks for, read through `q` with a checked catalog. */
export function entityQuery(q: Queryable, catalog: Catalog, args: Args, options: QueryOptions) {
  return run(q, compile(catalog, args, options));
}

/**
 * A top-level query in one round trip (see above); undefined when it must be made the checked
 * way: no catalog loaded yet, a schema changed since, or a query the last catalog cannot compile
 * (a name it does not know yet: the checked way says what is wrong with it, if anything).
 */
export async function uncheckedQuery(
  q: Queryable,
  args: Args,
  options: QueryOptions,
): Promise<unknown[] | undefined> {
  const catalog = lastCatalog();
  if (!catalog) return undefined;
  let compiled: CompiledQuery;
  try {
    compiled = compile(catalog, args, options, catalog.token);
  } catch {
    return undefined;
  }
  let answer: unknown[];
  try {
    answer = await run(q, compiled);
  } catch (error) {
    // A statement that failed on a changed schema (a table or column dropped since) is made again
    // the checked way; one that failed on the current schema failed for what it asks. Too many
    // rows means the guard held.
    if (sqlState(error) === undefined) throw error;
    if ((await schemaToken(q)) !== catalog.token) return undefined;
    throw error;
  }
  if (answer.length > 0) return answer;
  return (await schemaToken(q)) === catalog.token ? answer : undefined;
}
