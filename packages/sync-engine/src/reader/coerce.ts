import { z } from 'zod';
import { warn } from './warning.js';

// The primitives apps in production send looser than the spec's tables: booleans and numbers as
// strings ("true", "10"). Each is read as what it says, with a warning.

const show = (v: string) => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);

/** A boolean, or the string "true" / "false". */
export const flag = (key: string) =>
  z.preprocess((v) => {
    if (v === 'true' || v === 'false') {
      warn(key, `the string ${show(v)} read as ${v}`);
      return v === 'true';
    }
    return v;
  }, z.boolean());

/** A finite number, or a string that is one ("10", "2.5"). */
export const num = (key: string) =>
  z.preprocess((v) => {
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) {
      warn(key, `the string ${show(v)} read as the number ${Number(v)}`);
      return Number(v);
    }
    return v;
  }, z.number());

/** A string; a number or boolean is read as its text. */
export const text = (key: string) =>
  z.preprocess((v) => {
    if (typeof v === 'number' || typeof v === 'boolean') {
      warn(key, `${String(v)} (a ${typeof v}) read as the string ${show(String(v))}`);
      return String(v);
    }
    return v;
  }, z.string());

/**
 * An optional key that cannot be read is left out with a warning (`what` it was instead, and what
 * that means), rather than failing the part it belongs to; `null` counts as absent.
 */
export const orLeftOut = <T extends z.ZodType>(key: string, schema: T, what = 'left out') =>
  schema
    .nullish()
    .transform((v) => v ?? undefined)
    .catch((ctx) => {
      warn(key, `${JSON.stringify(ctx.value)?.slice(0, 40)} cannot be read: ${what}`);
      return undefined;
    });

/**
 * A key the spec's tables require but apps in production leave out, and the service takes without:
 * a warning naming it, once per part.
 */
export function tolerateMissing(raw: Record<string, unknown>, keys: readonly string[], why: string): void {
  for (const key of keys) if (raw[key] === undefined) warn(key, `missing (${why})`);
}

/** The first issue of a failed parse, as `path: message`. */
export function firstIssue(error: z.ZodError, prefix = ''): string {
  const issue = error.issues[0];
  const path = [prefix, ...(issue?.path ?? []).map(String)].filter(Boolean).join('.');
  return `${path || 'body'}: ${issue?.message ?? 'invalid'}`;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
