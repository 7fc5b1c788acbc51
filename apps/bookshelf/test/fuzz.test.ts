// Attack test in CI: 5,000 generated hostile requests over every endpoint (fixed seed).
import { fuzzApp } from '@weft/core/testing';
import { expect, test } from 'vitest';
import { bookshelfApp } from '../src/app.js';

test('bookshelf survives 5,000 hostile requests: JSON answers, no 5xx, no hang', async () => {
  const report = await fuzzApp(bookshelfApp, {
    runs: 5_000,
    socketRuns: 100,
    seed: 20261122,
    accounts: [{}],
  });
  expect(report.cases).toBe(5_000);
}, 120_000);
