/**
 * The logger weft writes to. pino's and bunyan's loggers fit as they are; the default writes
 * one JSON line per event to stdout.
 */
export interface Logger {
  info(fields: Record<string, unknown>, message?: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
  error(fields: Record<string, unknown>, message?: string): void;
}

export type LogLevel = 'info' | 'warn' | 'error' | 'silent';
const LEVELS: readonly LogLevel[] = ['info', 'warn', 'error', 'silent'];

/**
 * `WEFT_LOG_LEVEL`: the least severe level written (default `info`: every request's line). A
 * value outside the list is refused at start-up rather than silently logging everything.
 */
export function logLevelFromEnv(env: NodeJS.ProcessEnv = process.env): LogLevel {
  const value = env.WEFT_LOG_LEVEL?.trim().toLowerCase();
  if (!value) return 'info';
  if ((LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new Error(`WEFT_LOG_LEVEL must be one of ${LEVELS.join(', ')} (got "${value.slice(0, 20)}")`);
}

/** One JSON object per line on stdout (info) or stderr (warn, error), from `level` up. */
export function jsonLogger(
  write: (line: string, level: 'info' | 'warn' | 'error') => void = defaultWrite,
  level: LogLevel = logLevelFromEnv(),
): Logger {
  const least = LEVELS.indexOf(level);
  if (level === 'silent') return silentLogger;
  const emit = (at: 'info' | 'warn' | 'error') =>
    LEVELS.indexOf(at) < least
      ? () => {}
      : (fields: Record<string, unknown>, message?: string) =>
          write(
            `${JSON.stringify({ level: at, time: new Date().toISOString(), ...(message ? { msg: message } : {}), ...fields })}\n`,
            at,
          );
  return { info: emit('info'), warn: emit('warn'), error: emit('error') };
}

function defaultWrite(line: string, level: 'info' | 'warn' | 'error'): void {
  (level === 'info' ? process.stdout : process.stderr).write(line);
}

/**
 * Discards everything; for tests, benchmarks, and `WEFT_LOG_LEVEL=silent`. A router given it
 * skips the work whose only product is a log line (the request log's timing and listener).
 */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
