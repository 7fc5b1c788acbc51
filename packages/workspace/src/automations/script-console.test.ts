// A script's console: every line it prints is kept with its run, formatted inside the script's
// sandbox, and bounded (what passes the limit is cut and marked), also when the script fails.
import { describe, expect, it } from 'vitest';
import { CONSOLE_LIMIT, runScript, TRUNCATED } from './script-runner.js';

const none = { svc: {}, http: {} };

describe('script console', () => {
  it('keeps log, info, warn and error lines with values formatted', async () => {
    const outcome = await runScript(
      `console.log('entities', args.n, { a: [1, 'x'] });
       console.info('info line');
       console.warn('careful');
       console.error(new TypeError('bad value'), undefined);
       return 'ok';`,
      { n: 2 },
      none,
      5000,
    );
    expect(outcome).toMatchObject({ ok: true, result: 'ok' });
    expect(outcome.console).toBe(
      'entities 2 {"a":[1,"x"]}\ninfo line\n[warn] careful\n[error] TypeError: bad value undefined',
    );
  });

  it('cuts what passes the limit and marks it, and keeps the lines of a failed script', async () => {
    const flood = await runScript(
      `for (let i = 0; i < 5000; i++) console.log(i + ' ' + 'x'.repeat(100)); return 1;`,
      {},
      none,
      10_000,
    );
    expect(flood.ok).toBe(true);
    expect(flood.console.length).toBeLessThanOrEqual(CONSOLE_LIMIT + TRUNCATED.length + 1);
    expect(flood.console.startsWith('0 xxx')).toBe(true);
    expect(flood.console.endsWith(`\n${TRUNCATED}`)).toBe(true);

    const failed = await runScript(`console.log('before'); throw new Error('broken');`, {}, none, 5000);
    expect(failed).toMatchObject({ ok: false, message: 'broken', console: 'before' });
    const silent = await runScript('return 3', {}, none, 5000);
    expect(silent.console).toBe('');
  });
});
