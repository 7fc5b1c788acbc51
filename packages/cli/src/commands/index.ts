import type { CommandEntry } from '../command.js';

/**
 * Every `weft` subcommand, in the order `weft --help` lists them. A module is imported only when
 * its command runs: one line here per command, the command itself in its own file.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'init',
    usage: '[options] [dir]',
    summary: 'scaffold a new app',
    load: async () => (await import('./init.js')).initCommand,
  },
  {
    name: 'check',
    usage: '[app-url-and-options...]',
    summary: 'run the conformance kit against a running app',
    load: async () => (await import('./check.js')).checkCommand,
  },
  {
    name: 'dev',
    usage: '[options] <app>',
    summary: 'run the local workspace with your app synced into it',
    load: async () => (await import('./dev.js')).devCommand,
  },
  {
    name: 'invoke',
    usage: '[options] <app> <operation> [args...]',
    summary: 'run one protocol operation against an app and print the exchange',
    load: async () => (await import('./invoke.js')).invokeCommand,
  },
  {
    name: 'types',
    usage: '[options] <url>',
    summary: "write TypeScript types for a workspace's schema",
    load: async () => (await import('./types.js')).typesCommand,
  },
  {
    name: 'date-range',
    usage: '[options] <phrase...>',
    summary: 'parse a date-range phrase ("last 3 months")',
    load: async () => (await import('./date-range.js')).dateRangeCommand,
  },
];
