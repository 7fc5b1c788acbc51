// The work behind both `weft types` (the weft CLI) and the client's own `weft-types` bin: read the
// token from the environment, resolve the output file, write the types, and say what happened.
// Each front end keeps only its argument parsing and where it prints.
import { isAbsolute, join } from 'node:path';
import { type Namespace, parseNamespace } from '@weft/namespace';
import { writeTypes } from './generate-types.js';

export interface TypesCommandOptions {
  /** The workspace's base address. */
  url: string;
  /** File to write; a relative path is taken from `cwd`. */
  out: string;
  /** Name of the generated interface (default `Workspace`). */
  name?: string;
  /** Environment variable holding the API token (default `WEFT_TOKEN`). */
  tokenEnv?: string;
  /** Where the token is read: never the command line, where other users of the machine could see it. */
  env: Record<string, string | undefined>;
  /** Folder a relative `out` is taken from. */
  cwd: string;
  /**
   * The namespace the workspace speaks (default: WEFT_NAMESPACE in `env`, else svc). The file
   * names things as @weft/client presents them to its callers, in svc, whatever this is.
   */
  namespace?: string;
}

export interface TypesCommandResult {
  /** 0 written, 1 the workspace or the generator failed, 2 no token (a usage error). */
  exitCode: 0 | 1 | 2;
  /** For standard output when `exitCode` is 0, otherwise for standard error (without a command prefix). */
  message: string;
  /** The file written (absolute), when `exitCode` is 0. */
  file?: string;
  /** How many workspace types the file describes, when `exitCode` is 0. */
  count?: number;
}

export async function runTypesCommand(options: TypesCommandOptions): Promise<TypesCommandResult> {
  const tokenEnv = options.tokenEnv ?? 'WEFT_TOKEN';
  const token = options.env[tokenEnv];
  if (!token) return { exitCode: 2, message: `set ${tokenEnv} to an API token of the workspace` };
  const file = isAbsolute(options.out) ? options.out : join(options.cwd, options.out);
  let namespace: Namespace;
  try {
    namespace =
      options.namespace !== undefined
        ? parseNamespace(options.namespace, '--namespace')
        : parseNamespace(options.env.WEFT_NAMESPACE, 'WEFT_NAMESPACE');
  } catch (error) {
    return { exitCode: 2, message: (error as Error).message };
  }
  try {
    const source = await writeTypes(options.url, token, file, {
      interfaceName: options.name ?? 'Workspace',
      namespace,
    });
    // One line per type: the generator writes each type's key at two spaces of indent.
    const count = source.split('\n').filter((line) => /^ {2}'/.test(line)).length;
    return { exitCode: 0, message: `wrote ${count} types to ${file}`, file, count };
  } catch (error) {
    // A WorkspaceError's message is already redacted; nothing else here carries the token.
    return { exitCode: 1, message: error instanceof Error ? error.message : String(error) };
  }
}
