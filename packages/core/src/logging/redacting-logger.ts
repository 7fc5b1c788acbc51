import type { Logger } from './logger.js';
import { clip } from './clip.js';
import { REDACTED, isSecretKey, redactor } from './redact.js';

/** Longest string kept in a log field; a log line stays a line. */
const MAX_LOG_STRING = 2_000;
const MAX_DEPTH = 6;
const MAX_KEYS = 50;

/**
 * A logger for code that handles accounts: every field and message passes through redaction of
 * `secrets` (and their encoded forms), values of secret-named keys become `[redacted]`, and
 * strings, arrays and nesting are capped. Handlers get this as `ctx.log`, so logging `{account}`
 * cannot write a token.
 */
export function redactingLogger(
  base: Logger,
  secrets: readonly string[],
  secretKeys: Iterable<string> = [],
): Logger {
  // Built on the first log call: most requests never log from a handler.
  let compiled: ((text: string) => string) | undefined;
  const clean = (text: string): string => {
    compiled ??= redactor(secrets);
    return compiled(text);
  };
  // Redact, then clip: a cut through a secret would leave part of it readable. The first
  // clip only bounds the work on a huge string; the final one is far inside it.
  const cut = (text: string): string => clip(clean(clip(text, 65_536)), MAX_LOG_STRING);
  const extra = new Set(secretKeys);
  const scrub = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return cut(value);
    if (value === null || typeof value !== 'object') return value;
    if (value instanceof Error) return { name: value.name, message: cut(value.message) };
    if (depth >= MAX_DEPTH) return '[nested]';
    if (Array.isArray(value)) {
      const items = value.slice(0, MAX_KEYS).map((item) => scrub(item, depth + 1));
      if (value.length > MAX_KEYS) items.push(`... (${value.length} items)`);
      return items;
    }
    const out: Record<string, unknown> = {};
    let count = 0;
    for (const [key, inner] of Object.entries(value)) {
      if (count++ >= MAX_KEYS) {
        out['...'] = 'more keys';
        break;
      }
      out[clip(key, 100)] =
        (isSecretKey(key) || extra.has(key)) && inner !== null && inner !== undefined && inner !== ''
          ? REDACTED
          : scrub(inner, depth + 1);
    }
    return out;
  };
  const wrap =
    (level: 'info' | 'warn' | 'error') =>
    (fields: Record<string, unknown>, message?: string): void => {
      const safe = scrub(fields ?? {}, 0) as Record<string, unknown>;
      base[level](safe, message === undefined ? undefined : cut(message));
    };
  return { info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}
