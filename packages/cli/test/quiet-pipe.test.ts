// `weft --help | head -1`: a reader that closes the pipe early ends weft quietly (status 0, nothing
// on stderr) instead of an unhandled EPIPE with its stack trace. A real process whose stdout is a
// pipe closed before weft writes to it.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', 'bin', 'weft.js');

describe('weft writing to a closed pipe', () => {
  it.each([['--help'], ['--version'], ['date-range', 'last 3 days']])(
    'weft %s ends quietly when its reader has gone',
    async (...args) => {
      const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      // Closed at once: weft needs far longer than this to start and write its first line.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      const code = await new Promise((r) => child.once('exit', (c) => r(c)));
      expect(stderr).toBe('');
      expect(code).toBe(0);
    },
  );
});
