import type { WeftCommand } from '../command.js';
import { checkCommand } from './check.js';
import { dateRangeCommand } from './date-range.js';
import { devCommand } from './dev.js';
import { initCommand } from './init.js';
import { invokeCommand } from './invoke.js';
import { typesCommand } from './types.js';

/** Every `weft` subcommand, in the order `weft --help` lists them. */
export const COMMANDS: readonly WeftCommand[] = [
  initCommand,
  checkCommand,
  devCommand,
  invokeCommand,
  typesCommand,
  dateRangeCommand,
];
