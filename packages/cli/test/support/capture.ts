import type { CliIo } from '../../src/io.js';

/** An io that keeps what a command writes. */
export function capture(cwd = process.cwd()): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: {
      write: (text: string) => {
        out += text;
      },
    },
    stderr: {
      write: (text: string) => {
        err += text;
      },
    },
    env: {},
    cwd,
    out: () => out,
    err: () => err,
  };
}
