// weft-types <url> [--out workspace-types.ts] [--name Workspace]
// The token comes from the environment (WEFT_TOKEN, or the variable named by --token-env), never
// from the command line, where other users of the machine could read it.
import { parseArgs } from 'node:util';
import { runTypesCommand } from './run-types-command.js';

const usage =
  'usage: weft-types <url> [--out file.ts] [--name Workspace] [--token-env WEFT_TOKEN] [--namespace svc|fibery]';

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length !== 1) {
    process.stderr.write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  const result = await runTypesCommand({
    url: positionals[0]!,
    out: values.out ?? 'workspace-types.ts',
    name: values.name ?? 'Workspace',
    tokenEnv: values['token-env'] ?? 'WEFT_TOKEN',
    ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
    env: process.env,
    cwd: process.cwd(),
  });
  if (result.exitCode === 0) process.stdout.write(`${result.message}\n`);
  else process.stderr.write(`weft-types: ${result.message}\n`);
  return result.exitCode;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string', short: 'o' },
      name: { type: 'string' },
      'token-env': { type: 'string' },
      namespace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('weft-types.js')) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
