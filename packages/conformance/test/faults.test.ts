import { describe, expect, it } from 'vitest';
import type { Fault } from './fixtures/reference-app.js';
import { runAgainst, withStatus } from './helpers.js';

describe('the reference app', () => {
  it('passes every check, with no warning', async () => {
    const report = await runAgainst();
    expect(withStatus(report, 'fail')).toEqual([]);
    expect(withStatus(report, 'warn')).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.summary.failed).toBe(0);
    expect(report.summary.passed).toBeGreaterThan(100);
  });

  it('reports the rows as the service would store them after the full and the delta sync', async () => {
    const report = await runAgainst();
    expect(report.sync.user).toMatchObject({ count: 12, pages: 2, synchronizationType: 'full' });
    expect(report.sync.user?.delta).toMatchObject({
      count: 11,
      set: 1,
      removed: 1,
      synchronizationType: 'delta',
    });
    expect(report.sync.user?.sample).toHaveLength(3);
    expect(report.sync.user?.sample[0]).toMatchObject({ id: 'u1', name: 'User 1 (renamed)' });
    expect(report.sync.user?.sample[0]).not.toHaveProperty('__syncAction');
    expect(report.sync.issue?.relationCoverage).toEqual({
      project: { total: 25, resolved: 25 },
      assignee: { total: 25, resolved: 25 },
      watchers: { total: 50, resolved: 50 },
    });
  });

  it('sends the requests the service sends: paging from null, the same operationId per run, lastSynchronizedAt on delta', async () => {
    const report = await runAgainst({}, { now: '2026-11-22T12:00:00Z' });
    const data = report.requests.filter(
      (r) =>
        r.path === '/api/v1/synchronizer/data' &&
        (r.body as { requestedType?: string }).requestedType === 'user',
    );
    const bodies = data.map((r) => r.body as Record<string, unknown>);
    expect(bodies[0]).toMatchObject({
      pagination: null,
      lastSynchronizedAt: null,
      types: ['user', 'project', 'issue'],
    });
    expect(bodies[1]).toMatchObject({ pagination: { offset: 10 }, lastSynchronizedAt: null });
    expect(bodies[1]?.operationId).toBe(bodies[0]?.operationId);
    expect(bodies[2]).toMatchObject({ pagination: null, lastSynchronizedAt: '2026-11-21T12:00:00.000Z' });
  });
});

const cases: [Fault, string, Record<string, unknown>?][] = [
  ['error-key', 'errors.message-key'],
  ['try-later-200', 'errors.try-later-status'],
  ['items-null', 'data.items'],
  ['invalid-account-500', 'validate.invalid-account'],
  ['invalid-account-hang', 'validate.invalid-account', { timeoutMs: 500 }],
  ['data-hang', 'data.response', { timeoutMs: 500 }],
  ['paging-loop', 'data.paging.loop'],
  ['paging-endless', 'data.paging.cap', { maxPages: 15 }],
  ['schema-no-name', 'schema.field'],
  ['relation-missing-type', 'schema.relation-target-type'],
  ['relation-both-sides', 'schema.relation-declared-once'],
  ['duplicate-ids', 'data.ids-unique'],
  ['html-error', 'errors.json-body'],
  ['sync-action-upsert', 'delta.sync-action'],
  ['action-200-message', 'actions.failure-status'],
  ['missing-next-page-config', 'data.pagination'],
  ['bad-value-types', 'data.value-types'],
  ['unknown-type-500', 'errors.unknown-type'],
  ['descriptor-sources', 'descriptor.sources'],
];

describe('each broken variant of the reference app', () => {
  it.each(cases)('fault %s fails %s', async (fault, id, options) => {
    const report = await runAgainst({ fault }, options);
    expect(report.ok).toBe(false);
    const failed = report.checks.filter((c) => c.status === 'fail');
    expect(failed.map((c) => c.id)).toContain(id);
    const check = failed.find((c) => c.id === id)!;
    expect(check.reason).toBeTruthy();
  });

  it('says which request showed the failure, with a response excerpt', async () => {
    const report = await runAgainst({ fault: 'items-null' });
    const check = report.checks.find((c) => c.id === 'data.items' && c.status === 'fail')!;
    expect(check.title).toContain('(user)');
    expect(check.reason).toContain('`items` is null');
    expect(check.request).toMatchObject({ method: 'POST', path: '/api/v1/synchronizer/data' });
    expect(check.request?.body).toContain('"requestedType":"user"');
    expect(check.response?.status).toBe(200);
    expect(check.response?.body).toContain('"items":null');
  });

  it('fails nothing else for a one-rule fault', async () => {
    const report = await runAgainst({ fault: 'relation-both-sides' });
    expect(withStatus(report, 'fail')).toEqual(['schema.relation-declared-once']);
  });

  it('reports a hang as "no answer within N ms" and goes on', async () => {
    const report = await runAgainst({ fault: 'invalid-account-hang' }, { timeoutMs: 500 });
    const check = report.checks.find((c) => c.id === 'validate.invalid-account')!;
    expect(check.reason).toBe('no answer within 500 ms');
    expect(check.response?.status).toBeUndefined();
    expect(report.checks.some((c) => c.id === 'data.response' && c.status === 'pass')).toBe(true);
  });

  it('stops a looping type after the repeated nextPageConfig', async () => {
    const report = await runAgainst({ fault: 'paging-loop' });
    const check = report.checks.find((c) => c.id === 'data.paging.loop' && c.status === 'fail')!;
    expect(check.reason).toContain('page 2 returned the same `nextPageConfig` as page 1');
    expect(report.sync.issue?.pages).toBe(2);
  });

  it('says after how many pages the cap stopped paging', async () => {
    const report = await runAgainst({ fault: 'paging-endless' }, { maxPages: 15 });
    const check = report.checks.find((c) => c.id === 'data.paging.cap' && c.status === 'fail')!;
    expect(check.reason).toContain('paging did not end after 15 pages');
  });

  it('only warns when an invalid filter is accepted', async () => {
    const report = await runAgainst({ fault: 'filter-accepts-anything' });
    expect(report.ok).toBe(true);
    expect(withStatus(report, 'warn')).toEqual(['filter.invalid']);
  });

  it('skips the action checks without a fixture, with a hint', async () => {
    const report = await runAgainst({}, { actions: [] });
    const check = report.checks.find((c) => c.id === 'actions.fixtures')!;
    expect(check.status).toBe('skip');
    expect(check.reason).toContain('--actions');
  });
});
