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
