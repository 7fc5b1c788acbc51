import type { WeftCommand } from '../command.js';
import { checkCommand } from './check.js';
import { dateRangeCommand } from './date-range.js';
import { devCommand } from './dev.js';
import { initCommand } from './init.js';

/** Every `weft` subcommand, in the order `weft --help` lists them. */
export const COMMANDS: readonly WeftCommand[] = [initCommand, checkCommand, dateRangeCommand, devCommand];
