/**
 * weft-conformance <app-url> [--account <json|file>] [--filter <json|file>] [--actions <file>]
 *   [--auth <id>] [--max-pages N] [--timeout <ms>] [--concurrency N] [--types <ids>] [--now <iso>]
 *   [--last-synchronized-at <iso>] [--drift] [--drift-wait <s>] [--strict] [--json] [--no-color]
 *
 * Exit status: 0 when no check failed (warnings allowed unless --strict), 1 when a check failed,
 * 2 on usage errors or when the run could not happen (nothing listens at the URL).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AppUnreachableError, ConformanceOptionsError } from './errors.js';
import { formatReport } from './format.js';
import { runConformance } from './run.js';
import type { ActionFixture, ConformanceOptions, ProgressEvent } from './types.js';
import { isPlainObject } from './util.js';

const usage = (program: string) => `usage: ${program} <app-url> [options]

  --account <json|file>   account fields, inline JSON or a JSON file
  --auth <id>             authentication id (default: the first one that is not 'none')
  --filter <json|file>    filter values; date filters may use the grammar ("last 3 months")
  --actions <file>        JSON fixture: [{"action": "id", "args": {...}, "expect": "success"|"failure"}]
  --max-pages <n>         page cap per type (default 1000)
  --timeout <ms>          time limit per request (default 10000)
  --concurrency <n>       types synced at the same time (default: all, as the service does)
  --types <ids>           sync only these types, comma-separated (default: all the app's)
  --now <iso>             the current time for date filters and lastSynchronizedAt
  --last-synchronized-at <iso>
                          lastSynchronizedAt of the delta sync (default: now minus one day)
  --drift                 check that the delta loses nothing: full sync, delta since it,
                          full sync again; the delta's result must equal the second full sync
  --drift-wait <s>        with --drift: wait s seconds before the delta, to change the upstream
  --strict                warnings fail too (for CI)
  --json                  print the report as JSON (nothing else on stdout)
  --no-color              no ANSI colours
  -h, --help              this text

exit status: 0 no check failed, 1 a check failed (or warned, with --strict),
2 usage error or the app could not be reached`;

class UsageError extends Error {}

function readJson(flag: string, value: string, cwd: string): unknown {
  const text = /^\s*[[{]/.test(value) ? value : readFile(flag, resolve(cwd, value), value);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--${flag}: not valid JSON (${(error as Error).message})`);
  }
}

function readFile(flag: string, path: string, given: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`--${flag}: '${given}' is neither inline JSON nor a readable file`);
  }
}

function readObject(
  flag: string,
  value: string | undefined,
  cwd: string,
): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  const json = readJson(flag, value, cwd);
  if (!isPlainObject(json)) throw new UsageError(`--${flag}: expected a JSON object`);
  return json;
}

function readActions(value: string | undefined, cwd: string): ActionFixture[] | undefined {
  if (value === undefined) return undefined;
  const json = readJson('actions', value, cwd);
  const ok =
    Array.isArray(json) &&
    json.every(
      (e) =>
        isPlainObject(e) &&
        typeof e.action === 'string' &&
        (e.args === undefined || isPlainObject(e.args)) &&
        (e.expect === undefined || e.expect === 'success' || e.expect === 'failure'),
    );
  if (!ok)
    throw new UsageError(
      '--actions: expected [{"action": "id", "args": {...}, "expect": "success"|"failure"}]',
    );
  return json as ActionFixture[];
}

function readInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${flag}: expected a positive integer, got '${value}'`);
  return n;
}

/** Where the CLI writes; the process streams by default. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  /** Default `process.env` (only `NO_COLOR` is read). */
  env?: Record<string, string | undefined>;
  /** Where relative `--account`/`--filter`/`--actions` paths are read from; default `process.cwd()`. */
  cwd?: string;
  /** The command name in messages and usage (a wrapper such as `weft check` passes its own). */
  programName?: string;
}

const PLAIN_PROGRESS_EVERY_MS = 2000;

/**
 * Progress on stderr: one updating line on a TTY; otherwise a plain line at most every 2 s
 * (so a short run prints nothing).
 */
function progressReporter(stderr: CliIo['stderr']): {
  onProgress: (e: ProgressEvent) => void;
  end: () => void;
} {
  const tty = stderr.isTTY === true;
  let lastPrint = tty ? 0 : Date.now();
  let dirty = false;
  const write = (text: string) => {
    if (tty) {
      stderr.write(`\r\u001b[K${text}`);
      dirty = true;
    } else stderr.write(`${text}\n`);
  };
  return {
    onProgress(e) {
      if (e.kind === 'drift-wait') {
        // Always shown: the user acts on it.
        if (tty && dirty) stderr.write('\r\u001b[K');
        stderr.write(
          `drift: full sync done; change the upstream now, the delta sync starts in ${e.seconds} s\n`,
        );
        dirty = false;
        return;
      }
      if (e.kind === 'group') {
        if (tty) write(`checking ${e.group}…`);
        return;
      }
      if (e.kind !== 'sync') return;
      const what = `${e.phase === 'delta' ? 'delta-syncing' : 'syncing'} ${e.typeId}: page ${e.page}, ${e.items.toLocaleString('en-US')} items`;
      const now = Date.now();
      if (tty) {
        if (e.done || now - lastPrint > 100) {
          write(what);
          lastPrint = now;
        }
      } else if (!e.done && now - lastPrint > PLAIN_PROGRESS_EVERY_MS) {
        write(what);
        lastPrint = now;
      }
    },
    end() {
      if (tty && dirty) stderr.write('\r\u001b[K');
    },
  };
}

/** Exit statuses of the CLI. */
export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;

/**
 * The whole `weft-conformance` command as a function, for wrappers: parses `argv` (without the
 * program name), runs the kit, writes the report, and resolves with the exit status — 0 no check
 * failed, 1 findings, 2 a usage error or no app at the URL. It never calls `process.exit`.
 *
 * @example
 * process.exitCode = await runConformanceCli(['http://localhost:3000', '--strict'], {
 *   cwd: process.cwd(), stdout: process.stdout, stderr: process.stderr, programName: 'weft check',
 * });
 */
export async function runConformanceCli(
  argv: string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const program = io.programName ?? 'weft-conformance';
  const cwd = io.cwd ?? process.cwd();
  const env = io.env ?? process.env;
  let url: string;
  let options: ConformanceOptions;
  let json: boolean;
  let color: boolean;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        account: { type: 'string' },
        auth: { type: 'string' },
        filter: { type: 'string' },
        actions: { type: 'string' },
        'max-pages': { type: 'string' },
        timeout: { type: 'string' },
        concurrency: { type: 'string' },
        types: { type: 'string' },
        now: { type: 'string' },
        'last-synchronized-at': { type: 'string' },
        drift: { type: 'boolean', default: false },
        'drift-wait': { type: 'string' },
        strict: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'no-color': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help) {
      io.stdout.write(`${usage(program)}\n`);
      return EXIT.ok;
    }
    if (positionals.length !== 1)
      throw new UsageError(positionals.length ? 'give exactly one app URL' : 'missing <app-url>');
    url = positionals[0]!;
    if (!/^https?:\/\//.test(url)) throw new UsageError(`not an http(s) URL: ${url}`);
    options = {};
    const account = readObject('account', values.account, cwd);
    if (account) options.account = account;
    const filter = readObject('filter', values.filter, cwd);
    if (filter) options.filter = filter;
    const actions = readActions(values.actions, cwd);
    if (actions) options.actions = actions;
    if (values.auth) options.authenticationId = values.auth;
    const maxPages = readInt('max-pages', values['max-pages']);
    if (maxPages) options.maxPages = maxPages;
    const timeoutMs = readInt('timeout', values.timeout);
    if (timeoutMs) options.timeoutMs = timeoutMs;
    const concurrency = readInt('concurrency', values.concurrency);
    if (concurrency) options.concurrency = concurrency;
    if (values.types !== undefined) {
      const types = values.types
        .split(',')
        .map((t) => t.trim())
        .filter((t) => t !== '');
      if (types.length === 0)
        throw new UsageError('--types: name at least one type id (e.g. --types task,project)');
      options.types = types;
    }
    if (values.now !== undefined) {
      if (Number.isNaN(Date.parse(values.now)))
        throw new UsageError(`--now: not an ISO date: '${values.now}'`);
      options.now = values.now;
    }
    const since = values['last-synchronized-at'];
    if (since !== undefined) {
      if (Number.isNaN(Date.parse(since)))
        throw new UsageError(`--last-synchronized-at: not an ISO date: '${since}'`);
      options.lastSynchronizedAt = since;
    }
    if (values.drift) options.drift = true;
    const wait = values['drift-wait'];
    if (wait !== undefined) {
      if (!values.drift) throw new UsageError('--drift-wait: only with --drift');
      if (!/^\d+(\.\d+)?$/.test(wait)) throw new UsageError(`--drift-wait: expected seconds, got '${wait}'`);
      options.driftWaitSeconds = Number(wait);
    }
    if (values.strict) options.strict = true;
    json = values.json;
    color = !values['no-color'] && !json && io.stdout.isTTY === true && !env.NO_COLOR;
  } catch (error) {
    io.stderr.write(`${program}: ${(error as Error).message}\n\n${usage(program)}\n`);
    return EXIT.usage;
  }

  const progress = progressReporter(io.stderr);
  options.onProgress = progress.onProgress;
  try {
    const report = await runConformance(url, options);
    progress.end();
    io.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report, { color })}\n`);
    return report.ok ? EXIT.ok : EXIT.findings;
  } catch (error) {
    progress.end();
    if (error instanceof ConformanceOptionsError || error instanceof AppUnreachableError) {
      io.stderr.write(`${program}: ${error.message}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`${program}: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT.usage;
  }
}

/** The `weft-conformance` binary's entry: `runConformanceCli` on the process's own streams. */
export function main(argv: string[], io?: CliIo): Promise<number> {
  return runConformanceCli(argv, io);
}
