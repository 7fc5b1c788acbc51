import { z } from 'zod';
import { firstIssue, flag, isObject } from './coerce.js';
import { collecting, type ReadResult, result, warn } from './warning.js';

// `POST /api/v1/synchronizer/data` as the service reads it: only `items` is required, and `null`
// is no rows (what Go's encoder writes for a list it never filled: apps in production answer a
// delta without changes so). No `pagination` (or `hasNext` not true) means no next page; no
// `synchronizationType` means `full`.
// Rows are checked to be objects, not copied: a page of thousands of rows is read as it came, by
// one loop over them rather than a schema per row (the rest of the page goes through zod).

type Json = Record<string, unknown>;

/** A data page as the service reads it. */
export interface ReadDataPage {
  items: Json[];
  hasNext: boolean;
  nextPageConfig: Json | null;
  synchronizationType: 'full' | 'delta';
}

const page = z.looseObject({
  items: z.array(z.unknown()),
  pagination: z
    .looseObject({
      hasNext: flag('pagination.hasNext').optional(),
      nextPageConfig: z.record(z.string(), z.unknown()).nullish(),
    })
    .nullish(),
  synchronizationType: z.unknown().optional(),
});

/** Reads one data answer as the service does. */
export function readDataAnswer(raw: unknown): ReadResult<ReadDataPage> {
  const { value, warnings } = collecting('data', (): ReadDataPage | string => {
    if (!isObject(raw)) return 'body: not a JSON object';
    if (raw.items === null) warn('items', 'null: read as no rows');
    const rows = raw.items === null ? [] : raw.items;
    // An array's rows are checked here; the schema sees it empty (so that it does not walk them).
    const listed = Array.isArray(rows);
    if (listed)
      for (let i = 0; i < rows.length; i++) if (!isObject(rows[i])) return `items.${i}: expected an object`;
    const parsed = page.safeParse(listed ? { ...raw, items: [] } : raw);
    if (!parsed.success) return firstIssue(parsed.error);
    const answer = parsed.data;
    if (answer.pagination === undefined) warn('pagination', 'missing: read as the last page');
    let type: 'full' | 'delta' = 'full';
    const declared = answer.synchronizationType;
    if (declared === 'full' || declared === 'delta') type = declared;
    else if (declared === undefined || declared === null)
      warn('synchronizationType', 'missing: read as `full`');
    else warn('synchronizationType', `unknown value ${JSON.stringify(declared)}: read as \`full\``);
    const hasNext = answer.pagination?.hasNext === true;
    return {
      items: rows as Json[],
      hasNext,
      nextPageConfig: hasNext ? (answer.pagination?.nextPageConfig ?? {}) : null,
      synchronizationType: type,
    };
  });
  return result(value, warnings);
}
