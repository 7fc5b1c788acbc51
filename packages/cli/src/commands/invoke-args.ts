// `weft invoke`'s arguments, checked before anything starts (no app module is started, no request
// sent, for arguments that cannot work): every problem is a UsageError, exit status 2.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DateRangeError, parseDateRange } from '@weft/date-range';
import { z } from 'zod';
import { UsageError } from '../io.js';

type Json = Record<string, unknown>;

export const OPERATIONS = [
  'validate',
  'config',
  'schema',
  'data',
  'datalist',
  'action',
  'webhook-transform',
] as const;

export type Operation =
  | { name: 'validate' | 'config' | 'schema' }
  | { name: 'data'; type: string }
  | { name: 'datalist'; field: string }
  | { name: 'action'; action: string; args: Json }
  | { name: 'webhook-transform'; payload: unknown; params: Json };

export interface InvokeArgs {
  /** the app's URL, or the module to start */
  target: { url: string } | { module: string };
  operation: Operation;
  account?: Json;
  auth?: string;
  types?: string[];
  /** filter values as given (date filters may still be phrases: resolved once the config is read) */
  filter: Json;
  /** `lastSynchronizedAt` of a data request (a delta sync since then) */
  since?: string;
  /** data pages read at most */
  pages?: number;
  json: boolean;
}

export interface InvokeOptions {
  account?: string;
  auth?: string;
  types?: string;
  filter?: string[];
  since?: string;
  pages?: string;
  args?: string;
  payload?: string;
  params?: string;
  json?: boolean;
}

const jsonObject = z.record(z.string(), z.unknown());
const pageCount = z.coerce.number().int().positive();
const FILTER_PAIR = /^([^=]+)=(.*)$/s;

/** A JSON value given inline or as a file (from the user's folder). */
function readJson(flag: string, value: string, cwd: string): unknown {
  const inline = /^\s*[[{"]/.test(value);
  let text = value;
  if (!inline) {
    const path = resolve(cwd, value);
    if (!existsSync(path)) throw new UsageError(`--${flag}: '${value}' is neither JSON nor a file`);
    text = readFileSync(path, 'utf8');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--${flag}: not valid JSON (${(error as Error).message})`);
  }
}

function readObject(flag: string, value: string | undefined, cwd: string): Json | undefined {
  if (value === undefined) return undefined;
  const parsed = jsonObject.safeParse(readJson(flag, value, cwd));
  if (!parsed.success) throw new UsageError(`--${flag} must be a JSON object (inline or in a file)`);
  return parsed.data;
}

/** `k=v` pairs; a value that reads as JSON (a number, a list, an object) is taken as that. */
function readFilter(pairs: string[]): Json {
  const out: Json = {};
  for (const pair of pairs) {
    const match = FILTER_PAIR.exec(pair);
    if (!match) throw new UsageError(`--filter takes key=value, got '${pair}'`);
    const [, key, raw] = match as unknown as [string, string, string];
    let value: unknown = raw;
    if (/^\s*[[{\d-]|^(true|false|null)$/.test(raw)) {
      try {
        value = JSON.parse(raw);
      } catch {
        // a phrase such as "2024-01-01" or "-3 days": kept as text
      }
    }
    out[key.trim()] = value;
  }
  return out;
}

/** An ISO date or time as it is, or a date-range phrase ("yesterday", "last 3 days"): its start. */
export function readSince(value: string, now?: Date): string {
  if (/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) {
    const time = Date.parse(value);
    if (!Number.isNaN(time)) return new Date(time).toISOString();
  }
  let start: string | undefined;
  try {
    start = parseDateRange(value, now ? { now } : {})._min;
  } catch (error) {
    const why = error instanceof DateRangeError ? error.message : 'not a date';
    throw new UsageError(`--since: ${why}`);
  }
  if (start === undefined) throw new UsageError(`--since: '${value}' has no start`);
  // The phrase's day starts at local midnight, as the user means it.
  return new Date(start).toISOString();
}

function operationOf(name: string, rest: string[], options: InvokeOptions, cwd: string): Operation {
  const want = (count: number, usage: string) => {
    if (rest.length !== count)
      throw new UsageError(
        count === 0
          ? `${name} takes no argument (got ${rest.join(' ')})`
          : `${name} needs ${usage}: weft invoke <app> ${name} ${usage}`,
      );
  };
  const unused = (flag: keyof InvokeOptions, only: string) => {
    if (options[flag] !== undefined) throw new UsageError(`--${flag} is for ${only} only`);
  };
  if (name !== 'action') unused('args', 'action');
  if (name !== 'webhook-transform') {
    unused('payload', 'webhook-transform');
    unused('params', 'webhook-transform');
  }
  if (name !== 'data') {
    unused('since', 'data');
    unused('pages', 'data');
  }
  switch (name) {
    case 'validate':
    case 'config':
    case 'schema':
      want(0, '');
      return { name };
    case 'data':
      want(1, '<type>');
      return { name, type: rest[0] as string };
    case 'datalist':
      want(1, '<field>');
      return { name, field: rest[0] as string };
    case 'action': {
      want(1, '<action id>');
      return { name, action: rest[0] as string, args: readObject('args', options.args, cwd) ?? {} };
    }
    case 'webhook-transform': {
      want(0, '');
      if (options.payload === undefined)
        throw new UsageError(
          'webhook-transform needs --payload <file|json>: the event as the third party sent it',
        );
      return {
        name,
        payload: readJson('payload', options.payload, cwd),
        params: readObject('params', options.params, cwd) ?? {},
      };
    }
    default:
      throw new UsageError(`unknown operation '${name}' (one of ${OPERATIONS.join(', ')})`);
  }
}

export function readInvokeArgs(
  target: string,
  operation: string,
  rest: string[],
  options: InvokeOptions,
  cwd: string,
): InvokeArgs {
  const isUrl = /^https?:\/\//.test(target);
  if (!isUrl && !existsSync(resolve(cwd, target)))
    throw new UsageError(`no such app module: ${target} (give the app's module or its URL)`);
  const args: InvokeArgs = {
    target: isUrl ? { url: target } : { module: resolve(cwd, target) },
    operation: operationOf(operation, rest, options, cwd),
    filter: readFilter(options.filter ?? []),
    json: options.json === true,
  };
  const account = readObject('account', options.account, cwd);
  if (account) args.account = account;
  if (options.auth) args.auth = options.auth;
  if (options.types !== undefined) {
    const types = options.types
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    if (types.length === 0) throw new UsageError('--types needs at least one type id');
    args.types = types;
  }
  if (options.since !== undefined) args.since = readSince(options.since);
  if (options.pages !== undefined) {
    const pages = pageCount.safeParse(options.pages);
    if (!pages.success)
      throw new UsageError(`--pages must be a whole number, 1 or more (got '${options.pages}')`);
    args.pages = pages.data;
  }
  return args;
}
