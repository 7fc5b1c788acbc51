import { z } from 'zod';
import { firstIssue, flag, isObject } from './coerce.js';
import { collecting, type ReadResult, result, warn } from './warning.js';

// `POST /api/v1/synchronizer/data` as the service reads it: only `items` is required. No
// `pagination` (or `hasNext` not true) means no next page; no `synchronizationType` means `full`.
// Rows are checked to be objects, not copied: a page of thousands of rows is read as it came.

type Json = Record<string, unknown>;

/** A data page as the service reads it. */
export interface ReadDataPage {
  items: Json[];
  hasNext: boolean;
  nextPageConfig: Json | null;
  synchronizationType: 'full' | 'delta';
}

const page = z.looseObject({
  items: z.array(z.custom<Json>(isObject, { message: 'expected an object' })),
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
    const parsed = page.safeParse(raw);
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
      items: answer.items,
      hasNext,
      nextPageConfig: hasNext ? (answer.pagination?.nextPageConfig ?? {}) : null,
      synchronizationType: type,
    };
  });
  return result(value, warnings);
}
