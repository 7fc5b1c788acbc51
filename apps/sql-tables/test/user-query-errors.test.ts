// Checking the user's query blames the query only for what its text causes: a statement over the
// time limit, or a database in trouble, comes back as it is, for the caller to answer as that.
import { InvalidFilterError } from '@weft/core';
import { describe, expect, it } from 'vitest';
import type { Queryable } from '../src/database.js';
import { isStatementFault } from '../src/errors.js';
import { checkQuery } from '../src/user-query.js';

/** A connection whose every statement fails with `error`. */
const failing = (error: unknown): Queryable => ({
  query: async () => {
    throw error;
  },
  queryArrays: async () => {
    throw error;
  },
});
const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("sql-tables: checking the user's query", () => {
  it.each([
    ['a syntax error', pgError('42601', 'syntax error at or near "SELEC"')],
    ['an unknown table', pgError('42P01', 'relation "nope" does not exist')],
    ['a permission', pgError('42501', 'permission denied for function pg_ls_dir')],
  ])('answers %s as the filter’s fault', async (_, error) => {
    const thrown = await checkQuery(failing(error), 'SELECT 1 AS id').catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(InvalidFilterError);
    expect((thrown as Error).message).toBe(`Filter "query": ${error.message}`);
  });

  it.each([
    ['the time limit', pgError('57014', 'canceling statement due to statement timeout')],
    ['a server shutting down', pgError('57P01', 'terminating connection due to administrator command')],
    ['a lost connection', Object.assign(new Error('Connection terminated unexpectedly'), {})],
    ['a refused connection', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['too many connections', pgError('53300', 'sorry, too many clients already')],
  ])('passes %s on as it is', async (_, error) => {
    const thrown = await checkQuery(failing(error), 'SELECT 1 AS id').catch((e: unknown) => e);
    expect(thrown).toBe(error);
    expect(isStatementFault(error)).toBe(false);
  });
});
