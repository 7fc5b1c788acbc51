/**
 * The logger weft writes to. pino's and bunyan's loggers fit as they are; the default writes
 * one JSON line per event to stdout.
 */
export interface Logger {
  info(fields: Record<string, unknown>, message?: string): void;
  warn(fields: Record<string, unknown>, message?: string): void;
  error(fields: Record<string, unknown>, message?: string): void;
}

/** One JSON object per line on stdout (info) or stderr (warn, error). */
export function jsonLogger(
  write: (line: string, level: 'info' | 'warn' | 'error') => void = defaultWrite,
): Logger {
  const emit = (level: 'info' | 'warn' | 'error') => (fields: Record<string, unknown>, message?: string) =>
    write(
      `${JSON.stringify({ level, time: new Date().toISOString(), ...(message ? { msg: message } : {}), ...fields })}\n`,
      level,
    );
  return { info: emit('info'), warn: emit('warn'), error: emit('error') };
}

function defaultWrite(line: string, level: 'info' | 'warn' | 'error'): void {
  (level === 'info' ? process.stdout : process.stderr).write(line);
}

/** Discards everything; for tests and benchmarks. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
