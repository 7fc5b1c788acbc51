// When the app announces its own time limit (core apps send X-Weft-Time-Limit on GET /), the kit
// waits longer than that, so a slow page shows up as the app's own 504 tryLater — which the
// service retries — instead of the kit giving up first with "no answer".
import { auth, defineApp, field } from '@weft/core';
import { testApp } from '@weft/core/testing';
import { describe, expect, it } from 'vitest';
import { effectiveTimeout, formatReport, runConformance } from '../src/index.js';
import { runAgainst } from './helpers.js';

const slow = defineApp({
  id: 'slow',
  name: 'Slow',
  version: '1',
  description: 'A type whose pages never finish',
  website: 'https://example.test',
  timeoutMs: 400,
  authentication: [auth.none()],
  sync: {
    types: {
      fast: {
        name: 'Fast',
        fields: { id: field.id(), name: field.text() },
        async *data() {
          yield [{ id: '1', name: 'one' }];
        },
      },
      stuck: {
        name: 'Stuck',
        fields: { id: field.id(), name: field.text() },
        async *data({ signal, mode }) {
          if (mode === 'delta') return;
          // Waits until core's own time limit aborts the handler.
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          yield [];
        },
      },
    },
  },
});

describe('the app time limit', () => {
  it('is waited out, so the app answers 504 tryLater and the kit retries instead of failing', async () => {
    const app = await testApp(slow);
    try {
      // The kit's own limit must be short for the test to mean anything, so on a loaded machine
      // even GET / can miss it; the run is then repeated (up to three times in all).
      let report = await runConformance(app.url, { timeoutMs: 300 });
      for (let i = 0; i < 2 && report.checks[0]?.reason?.startsWith('no answer within'); i++)
        report = await runConformance(app.url, { timeoutMs: 300 });
      expect(report.appTimeLimitMs).toBe(400);
      expect(report.timeoutMs).toBe(effectiveTimeout(300, 400));
      const stuck = report.checks.find((c) => c.id === 'data.response' && c.title.includes('(stuck)'));
      expect(stuck?.status).toBe('warn');
      expect(stuck?.reason).toContain('the app asked to try later 3 times');
      expect(stuck?.response?.status).toBe(504);
      expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual([]);
      expect(formatReport(report).split('\n')[1]).toBe(
        `time limit per request ${report.timeoutMs.toLocaleString('en-US')} ms: longer than the app's own 400 ms, so its 504 tryLater is seen`,
      );
    } finally {
      await app.close();
    }
  }, 20_000);

  it('leaves the limit alone when the app announces none, and never shortens it', async () => {
    const report = await runAgainst({}, { timeoutMs: 1500 });
    expect(report.timeoutMs).toBe(1500);
    expect(report.appTimeLimitMs).toBeUndefined();
    expect(effectiveTimeout(60_000, 25_000)).toBe(60_000);
    expect(effectiveTimeout(10_000, 25_000)).toBe(27_500);
  });
});
