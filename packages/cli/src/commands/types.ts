// `weft types <url>`: TypeScript types for a workspace's types and fields, read from its schema,
// so queries and entity payloads through @weft/client are checked by the compiler.
import { isAbsolute, join } from 'node:path';
import { WorkspaceError, writeTypes } from '@weft/client';
import type { WeftCommand } from '../command.js';
import { EXIT, EXIT_HELP, userFolder } from '../io.js';

export const typesCommand: WeftCommand = {
  name: 'types',
  register(program, io, done) {
    program
      .command('types')
      .summary("write TypeScript types for a workspace's schema")
      .description(
        "Reads the workspace's schema (svc.schema/query) and writes an interface of its types and fields for createWorkspaceClient<Workspace>(). The token is read from the environment, never from the command line.",
      )
      .argument('<url>', "the workspace's base address, e.g. http://localhost:3100")
      .option('-o, --out <file>', 'file to write, from the folder weft runs in', 'workspace-types.ts')
      .option('--name <name>', 'name of the generated interface', 'Workspace')
      .option('--token-env <variable>', 'environment variable holding the API token', 'WEFT_TOKEN')
      .addHelpText(
        'after',
        `
Examples:
  WEFT_TOKEN=... weft types http://localhost:3100
  WEFT_TOKEN=... weft types https://my.workspace.example --out src/workspace-types.ts --name Tracker

${EXIT_HELP}`,
      )
      .action(async (url: string, options: { out: string; name: string; tokenEnv: string }) => {
        const token = io.env[options.tokenEnv];
        if (!token) {
          io.stderr.write(`weft types: set ${options.tokenEnv} to an API token of the workspace\n`);
          return done(EXIT.usage);
        }
        const folder = userFolder(io.env, io.cwd);
        const out = isAbsolute(options.out) ? options.out : join(folder, options.out);
        try {
          const source = await writeTypes(url, token, out, { interfaceName: options.name });
          const count = source.split('\n').filter((line) => /^ {2}'/.test(line)).length;
          io.stdout.write(`wrote ${count} types to ${out}\n`);
          done(EXIT.ok);
        } catch (error) {
          const message = error instanceof WorkspaceError ? error.message : (error as Error).message;
          io.stderr.write(`weft types: ${message}\n`);
          done(EXIT.findings);
        }
      });
  },
};
