// weft-types <url> [--out workspace-types.ts] [--name Workspace]
// The token comes from the environment (WEFT_TOKEN, or the variable named by --token-env), never
// from the command line, where other users of the machine could read it.
import { parseArgs } from 'node:util';
import { WorkspaceError } from '../errors.js';
import { writeTypes } from './generate-types.js';

const usage = 'usage: weft-types <url> [--out file.ts] [--name Workspace] [--token-env WEFT_TOKEN]';

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
  const tokenEnv = values['token-env'] ?? 'WEFT_TOKEN';
  const token = process.env[tokenEnv];
  if (!token) {
    process.stderr.write(`set ${tokenEnv} to an API token of the workspace\n`);
    return 2;
  }
  const out = values.out ?? 'workspace-types.ts';
  try {
    const source = await writeTypes(positionals[0]!, token, out, {
      interfaceName: values.name ?? 'Workspace',
    });
    const count = source.split('\n').filter((l) => /^ {2}'/.test(l)).length;
    process.stdout.write(`wrote ${count} types to ${out}\n`);
    return 0;
  } catch (error) {
    const message = error instanceof WorkspaceError ? error.message : (error as Error).message;
    process.stderr.write(`weft-types: ${message}\n`);
    return 1;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string', short: 'o' },
      name: { type: 'string' },
      'token-env': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('weft-types.js')) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
