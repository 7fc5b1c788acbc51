// `weft date-range <phrase...>`: the service's date-range grammar, as `{ "_min", "_max" }`.
import { parseDateRange } from '@weft/date-range';
import type { WeftCommand } from '../command.js';
import { EXIT } from '../io.js';

export const dateRangeCommand: WeftCommand = {
  name: 'date-range',
  register(program, io, done) {
    program
      .command('date-range')
      .summary('parse a date-range phrase ("last 3 months")')
      .description(
        'Turns a plain-English date or range into {"_min", "_max"} (timezone-naive ISO 8601), as the service does for date filters.',
      )
      .argument('<phrase...>', 'the phrase; quotes optional')
      .option('--now <iso>', 'reference time, e.g. 2026-11-22T10:00:00 (default: now)')
      .option('--tz <zone>', 'IANA time zone deciding which day "today" is, e.g. Europe/Berlin')
      .option('--lenient', 'retry literal dates the grammar rejects with chrono-node ("March 5, 2024")')
      .addHelpText(
        'after',
        `
Examples:
  weft date-range "last 3 months" --now 2026-11-22T10:00:00
  weft date-range between 3 months ago and 2 months ago
  weft date-range today --tz Europe/Berlin

Exit status: 0 ok, 1 the phrase is not a date range, 2 usage error.`,
      )
      .action((words: string[], options: { now?: string; tz?: string; lenient?: boolean }) => {
        try {
          const range = parseDateRange(words.join(' '), {
            ...(options.now === undefined ? {} : { now: options.now }),
            ...(options.tz === undefined ? {} : { timeZone: options.tz }),
            lenient: options.lenient === true,
          });
          io.stdout.write(`${JSON.stringify(range, null, 2)}\n`);
          done(EXIT.ok);
        } catch (error) {
          io.stderr.write(`weft date-range: ${(error as Error).message}\n`);
          done(EXIT.findings);
        }
      });
  },
};
