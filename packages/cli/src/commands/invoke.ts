// `weft invoke <app> <operation>`: one protocol operation against an app, printed, nothing stored
// (see invoke-run.ts). The arguments are checked before the app module starts; the module runs
// as `weft dev` runs it, on a free port, and is stopped when the operation is done.
import type { WeftCommand } from '../command.js';
import type { CliIo } from '../io.js';
import { AppProcess } from './dev-app-process.js';
import { freePort } from './free-port.js';
import { type InvokeOptions, OPERATIONS, readInvokeArgs } from './invoke-args.js';
import { invoke } from './invoke-run.js';

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

async function run(
  target: string,
  operation: string,
  rest: string[],
  options: InvokeOptions,
  io: CliIo,
): Promise<number> {
  const args = readInvokeArgs(target, operation, rest, options, io.cwd);
  if ('url' in args.target) return invoke(args.target.url, args, io);
  // The app's own request lines would bury the exchanges printed here (WEFT_LOG_LEVEL shows them).
  const app = new AppProcess(args.target.module, await freePort(), {
    ...io,
    env: { WEFT_LOG_LEVEL: 'warn', ...io.env },
  });
  try {
    await app.start();
    return await invoke(app.url, args, io);
  } finally {
    await app.close();
  }
}

export const invokeCommand: WeftCommand = {
  name: 'invoke',
  register(program, io, done) {
    program
      .command('invoke')
      .summary('run one protocol operation against an app and print the exchange')
      .description(
        "Plays the workspace's host towards the app for one operation (the sync engine, its reader and its warnings), prints each request (account secrets redacted), its status, timing and the answer, and stores nothing.",
      )
      .argument('<app>', 'the app URL, or its module (started as weft dev starts it)')
      .argument('<operation>', OPERATIONS.join(' | '))
      .argument('[args...]', 'data <type> | datalist <field> | action <id>')
      .option('--account <json|file>', 'account field values, e.g. \'{"token":"..."}\'')
      .option(
        '--auth <id>',
        "the authentication (default: the account's auth, else the app's first that is not none)",
      )
      .option('--types <list>', 'the types sent as context, comma-separated')
      .option('--filter <key=value>', 'a filter value (repeat it); date filters take phrases', collect)
      .option('--since <iso|phrase>', 'data: lastSynchronizedAt, e.g. 2026-11-01 or "yesterday"')
      .option('--pages <n>', 'data: stop after n pages (default: every page)')
      .option('--args <json|file>', 'action: the action arguments')
      .option('--payload <file|json>', 'webhook-transform: the event as the third party sent it')
      .option('--params <json|file>', 'webhook-transform: the webhook params')
      .option('--json', 'print one JSON document (exchanges, pages, answer) and nothing else')
      .addHelpText(
        'after',
        `
Examples:
  weft invoke http://localhost:3101 data book --pages 2
  weft invoke src/main.ts data issue --account account.json --filter state=open --since yesterday
  weft invoke http://localhost:3101 data book --filter published="last 3 years" --json
  weft invoke src/main.ts validate --account '{"token":"..."}'
  weft invoke src/main.ts config --account account.json
  weft invoke src/main.ts schema --types book,author
  weft invoke src/main.ts datalist genre
  weft invoke src/main.ts action notify --account account.json --args '{"text":"hi"}'
  weft invoke src/main.ts webhook-transform --account account.json --payload event.json

Exit status: 0 ok, 1 the app answered an error (printed as it sent it), 2 usage error.`,
      )
      .action(async (target: string, operation: string, rest: string[], options: InvokeOptions) => {
        done(await run(target, operation, rest, options, io));
      });
  },
};
