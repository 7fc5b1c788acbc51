/** Where a command reads and writes; the process by default, captured in tests. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** The user's folder: file arguments and `weft init [dir]` are resolved from here. */
  cwd: string;
}

/** The one exit-status convention of every `weft` command. */
export const EXIT = {
  /** Done, nothing wrong found. */
  ok: 0,
  /** The command ran and found problems (failed checks, an unparsable phrase, a failed install). */
  findings: 1,
  /** Wrong arguments: unknown option, missing value, a target folder that is not empty. */
  usage: 2,
} as const;

/** Help footer shared by every command. */
export const EXIT_HELP = `Exit status: 0 ok, 1 findings (failed checks, an invalid phrase, a failed install), 2 usage error.`;

/** Raised by a command for a usage problem: printed as `weft <command>: <message>`, exit status 2. */
export class UsageError extends Error {}

/**
 * The folder the user ran `weft` from. `pnpm weft` and `npm run` start scripts in the package's
 * folder and keep the user's folder in INIT_CWD, so file arguments are resolved from there.
 */
export function userFolder(env: Record<string, string | undefined>, cwd: string): string {
  return env.INIT_CWD && env.INIT_CWD.length > 0 ? env.INIT_CWD : cwd;
}

/** `1 row`, `2 rows`: a count and its word, singular for one. */
export const counted = (n: number, word: string): string => `${n} ${n === 1 ? word : `${word}s`}`;
