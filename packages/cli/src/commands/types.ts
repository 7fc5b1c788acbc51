// `weft types <url>`: TypeScript types for a workspace's types and fields, read from its schema,
// so queries and entity payloads through @weft/client are checked by the compiler.
import { runTypesCommand } from '@weft/client';
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
      .option(
        '--namespace <svc|fibery>',
        'the namespace the workspace speaks: fibery for the real service (default: WEFT_NAMESPACE, else svc)',
      )
      .addHelpText(
        'after',
        `
Examples:
  WEFT_TOKEN=... weft types http://localhost:3100
  WEFT_TOKEN=... weft types https://my.workspace.example --out src/workspace-types.ts --name Tracker
  WEFT_TOKEN=... weft types https://acme.fibery.io --namespace fibery

${EXIT_HELP}`,
      )
      .action(
        async (url: string, options: { out: string; name: string; tokenEnv: string; namespace?: string }) => {
          const result = await runTypesCommand({
            url,
            out: options.out,
            name: options.name,
            tokenEnv: options.tokenEnv,
            ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
            env: io.env,
            cwd: userFolder(io.env, io.cwd),
          });
          if (result.exitCode === 0) io.stdout.write(`${result.message}\n`);
          else io.stderr.write(`weft types: ${result.message}\n`);
          done(result.exitCode === 0 ? EXIT.ok : result.exitCode === 2 ? EXIT.usage : EXIT.findings);
        },
      );
  },
};
