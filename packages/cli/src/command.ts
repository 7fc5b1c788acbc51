import type { Command } from 'commander';
import type { CliIo } from './io.js';

/**
 * One `weft` subcommand, in its own file under `commands/`. Adding a command is writing one such
 * module and listing it in `commands/index.ts`.
 */
export interface WeftCommand {
  name: string;
  /**
   * Adds the command to the program. The action resolves with the exit status (see `EXIT`);
   * throwing a `UsageError` exits with 2.
   */
  register(program: Command, io: CliIo, done: (status: number) => void): void;
}

/**
 * A subcommand as `weft --help` lists it, and how to load it. The module is imported only when
 * its command runs (or its help is asked for), so `weft --version` loads no command and `weft
 * check` never loads the workspace's database.
 */
export interface CommandEntry {
  name: string;
  /** its arguments as the command list shows them, e.g. `[options] <app>` (as commander prints them) */
  usage: string;
  /** the one-line summary the command's module gives too (a test keeps the two equal) */
  summary: string;
  load(): Promise<WeftCommand>;
}
