// Attack test of core, in CI: fast-check drives every endpoint of an app using every core
// feature with generated hostile requests (fixed seed); see testing/fuzz.ts for the rules.
import { expect, test } from 'vitest';
import { fuzzApp } from '../src/testing/index.js';
import { KITCHEN_TOKEN, kitchenSinkApp } from './fixtures/kitchen-sink.js';

test('kitchen-sink app: 12,000 hostile requests, every answer JSON, no 5xx, no hang', async () => {
  const report = await fuzzApp(kitchenSinkApp(), {
    runs: 12_000,
    socketRuns: 300,
    seed: 20261122,
    accounts: [
      { token: KITCHEN_TOKEN },
      { token: KITCHEN_TOKEN, region: 'eu', retries: '3' },
      { access_token: 'at-1' },
    ],
  });
  console.log(
    `fuzz kitchen-sink: ${report.cases} in process + ${report.socketCases} over a socket, seed ${report.seed}, statuses ${JSON.stringify(report.statuses)}`,
  );
  expect(report.cases).toBe(12_000);
  expect(Object.keys(report.statuses).length).toBeGreaterThan(5);
}, 120_000);
