// `weft check <app-url> [options]`: the conformance kit. Its arguments go to the kit untouched,
// so every option the kit has (and any it gains) works here without a change.
import { main as conformanceMain } from '@weft/conformance/cli';
import type { WeftCommand } from '../command.js';
import { type CliIo, EXIT_HELP } from '../io.js';

const EXAMPLES = `Examples:
  weft check http://localhost:3000
  weft check http://localhost:3000 --account '{"token":"demo-token"}'
  weft check http://localhost:3000 --account account.json --filter '{"due":"last 3 months"}'
  weft check http://localhost:3000 --types task,project
  weft check https://my-app.example.com --json > report.json

File arguments (--account, --filter, --actions) are read from the folder weft runs in.`;

/** The kit's own option list, without its first usage line. */
async function kitOptions(io: CliIo): Promise<string> {
  let text = '';
  await conformanceMain(['--help'], {
    stdout: { write: (chunk: string) => (text += chunk) },
    stderr: io.stderr,
    env: io.env,
  });
  return text
    .split('\n')
    .filter((line) => !/^usage:/i.test(line) && !/^exit status/i.test(line))
    .join('\n')
    .trim();
}

export const checkCommand: WeftCommand = {
  name: 'check',
  register(program, io, done) {
    program
      .command('check')
      .summary('run the conformance kit against a running app')
      .description(
        'Plays the workspace service against an app and reports every departure from the protocol.',
      )
      .argument('[app-url-and-options...]', 'the app URL and the kit options below')
      // The kit parses its own options: commander hands every argument over as it came.
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .passThroughOptions()
      .action(async (_args: string[], _options: unknown, command: { args: string[] }) => {
        const argv = command.args;
        if (argv.includes('-h') || argv.includes('--help')) {
          io.stdout.write(
            `Usage: weft check <app-url> [options]\n\nPlays the workspace service against an app and reports every departure from the protocol.\n\nOptions (the conformance kit's):\n  ${await kitOptions(io)}\n\n${EXAMPLES}\n\n${EXIT_HELP}\n`,
          );
          done(0);
          return;
        }
        done(
          await conformanceMain(argv, {
            stdout: io.stdout,
            stderr: io.stderr,
            env: io.env,
          }),
        );
      });
  },
};
