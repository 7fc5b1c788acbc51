import { Command, CommanderError } from 'commander';
import { COMMANDS } from './commands/index.js';
import { type CliIo, EXIT, EXIT_HELP, UsageError } from './io.js';
import { CLI_VERSION } from './version.js';

/**
 * Runs `weft` with `argv` (without `node` and the script) and resolves with the exit status:
 * 0 ok, 1 findings, 2 usage error. Nothing calls `process.exit`, so tests run it in-process.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let status: number = EXIT.ok;
  const program = new Command('weft')
    .description('Build, scaffold and check apps for the workspace service.')
    .version(CLI_VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'help for weft or for a command (weft <command> --help)')
    .enablePositionalOptions()
    .showSuggestionAfterError()
    // A command not loaded has no arguments or options of its own: list it by its table usage.
    .configureHelp({ subcommandTerm: (command) => `${command.name()} ${command.usage()}`.trim() })
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .addHelpText(
      'after',
      `
Examples:
  weft init my-app                      scaffold an integration app in ./my-app
  weft check http://localhost:3000      run the conformance kit against a running app
  weft date-range "last 3 months"       parse a date-range phrase

${EXIT_HELP}`,
    );
  try {
    // Only the command that runs is loaded; the others are listed (for help and suggestions) from
    // the table alone.
    const wanted = commandNamed(argv);
    for (const entry of COMMANDS) {
      if (entry.name === wanted) {
        (await entry.load()).register(program, io, (code) => {
          status = code;
        });
      } else program.command(entry.name).usage(entry.usage).summary(entry.summary);
    }
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return EXIT.usage;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return status;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
      // Commander has already printed the problem (unknown option, missing argument, ...).
      return EXIT.usage;
    }
    if (error instanceof UsageError) {
      io.stderr.write(`weft: ${error.message}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`weft: ${(error as Error)?.message ?? String(error)}\n`);
    return EXIT.findings;
  }
}

/** The subcommand `argv` runs (or asks help for: `weft help <command>`); weft's own options take no value. */
function commandNamed(argv: readonly string[]): string | undefined {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}
