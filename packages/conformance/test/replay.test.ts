// data.replay: a page that makes the app produce every earlier page again. Core apps say so in
// X-Weft-Replayed-Rows; for any app the kit compares page times of the first and last pages.
import { describe, expect, it } from 'vitest';
import { startScaleApp } from '../bench/scale-app.js';
import { judgeReplay } from '../src/checks/replay.js';
import { runConformance } from '../src/index.js';
import { runAgainst } from './helpers.js';

async function replayCheck(resume: boolean) {
  const app = await startScaleApp({ rows: 12_000, resume });
  try {
    const report = await runConformance(app.url, { timeoutMs: 10_000 });
    expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
    return report.checks.find((c) => c.id === 'data.replay' && c.title.includes('(item)'));
  } finally {
    await app.close();
  }
}

describe('data.replay', () => {
  it('warns, naming the type, the rows replayed and the fix, when a core app replays its stream', async () => {
    const check = await replayCheck(false);
    expect(check?.status).toBe('warn');
    expect(check?.reason).toContain("type 'item': page 12 replayed 11,000 rows already sent");
    expect(check?.reason).toContain('X-Weft-Replayed-Rows');
    expect(check?.reason).toContain('Fix: `yield resume(...)` after each upstream page');
  });

  it('passes a core app that yields resume() after each upstream page', async () => {
    const check = await replayCheck(true);
    expect(check?.status).toBe('pass');
    expect(check?.reason).toContain('at most 0 rows replayed per page');
  });

  it('warns when page time grows with the page number (any app, no header)', async () => {
    const report = await runAgainst(
      { fault: 'slow-late-pages', counts: { user: 12, project: 6, issue: 250 } },
      { maxPages: 50 },
    );
    const check = report.checks.find((c) => c.id === 'data.replay' && c.title.includes('(issue)'));
    expect(check?.status).toBe('warn');
    expect(check?.reason).toMatch(/page time grows with the page number \(median [\d.]+ ms over pages 2-7/);
    expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
  });

  it('judges page times with a ratio and a floor, so tiny pages do not warn on noise', () => {
    const flat = Array.from({ length: 30 }, (_, i) => 5 + (i % 3));
    expect(judgeReplay('t', flat, [], 100).status).toBe('pass');
    // Six times slower, but only 2.5 ms more: noise on tiny pages.
    const tiny = Array.from({ length: 30 }, (_, i) => (i < 15 ? 0.5 : 3));
    expect(judgeReplay('t', tiny, [], 100).status).toBe('pass');
    const growing = Array.from({ length: 30 }, (_, i) => 2 + i * 2);
    expect(judgeReplay('t', growing, [], 100)).toMatchObject({ status: 'warn' });
    expect(judgeReplay('t', [1, 2, 3], [], 100).status).toBe('skip');
    // The header: below ten pages' worth passes, from ten pages' worth it warns.
    expect(judgeReplay('t', [1, 1], [0, 999], 100).status).toBe('pass');
    expect(judgeReplay('t', [1, 1], [0, 1000], 100).status).toBe('warn');
  });
});
