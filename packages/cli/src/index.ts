/**
 * The `weft` command as a library: `run(argv, io)` runs it in-process; `scaffoldApp` is what
 * `weft init` does.
 * @packageDocumentation
 */
export { run } from './program.js';
export { EXIT, UsageError, type CliIo } from './io.js';
export type { WeftCommand } from './command.js';
export {
  scaffoldApp,
  TEMPLATES,
  type ScaffoldOptions,
  type ScaffoldResult,
  type TemplateName,
} from './scaffold/scaffold.js';
