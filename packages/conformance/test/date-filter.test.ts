import { describe, expect, it } from 'vitest';
import { resolveDateFilters } from '../src/date-filter.js';
import { ConformanceOptionsError, runConformance } from '../src/index.js';
import { ACCOUNT, startReferenceApp } from './fixtures/reference-app.js';
import { runAgainst } from './helpers.js';

const NOW = '2026-11-22T15:30:00';

describe('date filters given as grammar text', () => {
  it('reach the app as {_min, _max} computed with `now`, in schema, data and filter/validate requests', async () => {
    const report = await runAgainst({}, { filter: { created: 'last 3 months', status: 'open' }, now: NOW });
    const expected = { _min: '2026-09-01T00:00:00.000', _max: '2026-11-30T23:59:59.999' };
    const paths = [
      '/api/v1/synchronizer/schema',
      '/api/v1/synchronizer/data',
      '/api/v1/synchronizer/filter/validate',
    ];
    for (const path of paths) {
      const request = report.requests.find((r) => r.path === path)!;
      expect((request.body as { filter: unknown }).filter).toEqual({ created: expected, status: 'open' });
    }
    expect(report.ok).toBe(true);
  });

  it('leaves values of other filter types and ready-made objects alone', async () => {
    const filters = [
      { id: 'created', type: 'date' },
      { id: 'query', type: 'text' },
    ];
    const range = { _min: '2026-01-01T00:00:00.000' };
    expect(await resolveDateFilters(filters, { created: range, query: 'last week' }, NOW)).toEqual({
      created: range,
      query: 'last week',
    });
    expect(await resolveDateFilters(filters, { created: 'from 1-10-2026' }, NOW)).toEqual({
      created: { _min: '2026-10-01T00:00:00.000' },
    });
  });

  it('rejects text the grammar cannot read as an options error, not as an app failure', async () => {
    const app = await startReferenceApp();
    try {
      await expect(
        runConformance(app.url, { account: ACCOUNT, filter: { created: 'the day after never' }, now: NOW }),
      ).rejects.toBeInstanceOf(ConformanceOptionsError);
    } finally {
      await app.close();
    }
  });
});
