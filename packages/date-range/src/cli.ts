#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { parseDateRange } from './parse-date-range.js';

const USAGE = `Usage: date-range "<phrase>" [--now <iso-date-time>] [--tz <iana-zone>] [--lenient]

Turns a plain-English date or range into {"_min", "_max"} (timezone-naive ISO 8601).

Options:
  --now <value>   reference time, e.g. 2026-11-22T10:00:00 (default: the current time)
  --tz <zone>     IANA time zone deciding which day "today" is, e.g. Europe/Berlin
  --lenient       retry literal dates the grammar rejects with chrono-node (e.g. "March 5, 2024")
  -h, --help      show this help

Examples:
  date-range "last 3 months" --now 2026-11-22T10:00:00
  date-range "between 3 months ago and 2 months ago"
`;

function main(argv: readonly string[]): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n\n${USAGE}`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length === 0) {
    process.stderr.write(`error: missing the date-range phrase\n\n${USAGE}`);
    return 1;
  }
  try {
    // Unquoted words arrive as separate arguments; `date-range last 3 months` should still work.
    const range = parseDateRange(positionals.join(' '), {
      ...(values.now === undefined ? {} : { now: values.now }),
      ...(values.tz === undefined ? {} : { timeZone: values.tz }),
      lenient: values.lenient === true,
    });
    process.stdout.write(`${JSON.stringify(range, null, 2)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    return 1;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      now: { type: 'string' },
      tz: { type: 'string' },
      lenient: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

process.exitCode = main(process.argv.slice(2));
