import { describe, expect, it } from 'vitest';
import { AppUnreachableError, runConformance } from '../src/index.js';
import { ACCOUNT, type Fault, type Quirk, SESSION_TOKEN } from './fixtures/reference-app.js';
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

  it('sends the requests the service sends: paging from null, the same operationId per run, lastSynchronizedAt on delta, the schema', async () => {
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
    // The resumability proof asks page 2 again, with the same operation.
    expect(bodies[2]).toEqual(bodies[1]);
    // The first page again, with the optional keys left out rather than null; `filter` is always
    // sent (`{}` when the user set none), as the service sends it.
    expect(bodies[3]).not.toHaveProperty('pagination');
    expect(bodies[3]).not.toHaveProperty('lastSynchronizedAt');
    expect(bodies[3]).toHaveProperty('filter', {});
    for (const body of bodies) expect(body).toHaveProperty('filter');
    const delta = bodies.find((b) => b.lastSynchronizedAt);
    expect(delta).toMatchObject({ pagination: null, lastSynchronizedAt: '2026-11-21T12:00:00.000Z' });
    expect(delta?.operationId).not.toBe(bodies[0]?.operationId);
    // Every data request carries the sync's schema as read from the app's answer: apps in
    // production read their own field definitions back from it (`schema[requestedType]`).
    for (const body of bodies) {
      const schema = body.schema as Record<string, Record<string, unknown>>;
      expect(Object.keys(schema).sort()).toEqual(['issue', 'project', 'user']);
      expect(schema.user).toMatchObject({
        id: { type: 'id', name: 'ID' },
        email: { type: 'text', subType: 'email', name: 'Email' },
        __syncAction: { type: 'text', name: 'Sync Action' },
      });
    }
  });

  it('sends the account as the service stores it: the fields, what /validate returned, and the system keys', async () => {
    const report = await runAgainst();
    const first = report.requests.find((r) => r.path === '/validate')!;
    expect(first.body).toEqual({ id: 'token', fields: ACCOUNT });
    const config = report.requests.find((r) => r.path === '/api/v1/synchronizer/config')!;
    expect((config.body as { account: unknown }).account).toEqual({
      auth: 'token',
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      app: expect.stringMatching(/^[0-9a-f]{24}$/),
      owner: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Conformance tester',
      ...ACCOUNT,
      sessionToken: SESSION_TOKEN,
    });
    const stored = report.requests.filter((r) => r.path === '/validate')[1]!;
    expect((stored.body as { fields: unknown }).fields).toEqual(
      (config.body as { account: unknown }).account,
    );
  });

  it('uses --last-synchronized-at for the delta sync', async () => {
    const report = await runAgainst({}, { lastSynchronizedAt: '2026-01-01T00:00:00Z' });
    const delta = report.requests.find(
      (r) => (r.body as { lastSynchronizedAt?: unknown } | undefined)?.lastSynchronizedAt,
    );
    expect(delta?.body).toMatchObject({ lastSynchronizedAt: '2026-01-01T00:00:00.000Z' });
  });
});

interface FaultCase {
  fault: Fault;
  /** The check that must fail. */
  id: string;
  /** Other checks the same single fault may also fail (the same mistake seen from another request). */
  also?: string[];
  options?: Record<string, unknown>;
}

/** The checks that look at error bodies: an app with bad error bodies fails all of them. */
const ERROR_BODY_CHECKS = [
  'validate.invalid-account',
  'validate.empty-fields',
  'validate.partial-fields',
  'datalist.not-datalist',
  'datalist.absent-depends-on',
  'actions.missing-args',
  'filter.invalid',
  'webhooks.verify',
  'webhooks.transform',
  'actions.failure',
  'errors.unknown-type',
  'errors.malformed-json',
  'errors.missing-requested-type',
  'errors.unknown-action',
];

/** An app that answers every refused account the same wrong way also refuses incomplete ones so. */
const INCOMPLETE_ACCOUNT = ['validate.empty-fields', 'validate.partial-fields'];

const cases: FaultCase[] = [
  { fault: 'no-message-key', id: 'errors.message-key', also: ERROR_BODY_CHECKS },
  { fault: 'try-later-200', id: 'errors.try-later-status', also: ['data.response'] },
  { fault: 'items-keyed', id: 'data.items', also: ['data.absent-keys'] },
  { fault: 'invalid-account-500', id: 'validate.invalid-account', also: INCOMPLETE_ACCOUNT },
  {
    fault: 'invalid-account-hang',
    id: 'validate.invalid-account',
    also: INCOMPLETE_ACCOUNT,
    options: { timeoutMs: 500 },
  },
  {
    fault: 'data-hang',
    id: 'data.response',
    also: ['delta.response', 'data.absent-keys'],
    options: { timeoutMs: 500 },
  },
  { fault: 'paging-loop', id: 'data.paging.loop' },
  { fault: 'paging-endless', id: 'data.paging.cap', options: { maxPages: 15 } },
  { fault: 'schema-unknown-field-type', id: 'schema.field' },
  { fault: 'descriptor-no-version', id: 'descriptor.shape' },
  { fault: 'relation-missing-type', id: 'schema.relation-target-type' },
  { fault: 'relation-both-sides', id: 'schema.relation-declared-once' },
  { fault: 'duplicate-ids', id: 'data.ids-unique' },
  { fault: 'html-error', id: 'errors.json-body', also: ERROR_BODY_CHECKS },
  { fault: 'sync-action-upsert', id: 'delta.sync-action' },
  { fault: 'action-200-message', id: 'actions.failure-status' },
  { fault: 'missing-next-page-config', id: 'data.pagination' },
  { fault: 'bad-value-types', id: 'data.value-types' },
  { fault: 'duplicate-auth-ids', id: 'descriptor.auth-ids-unique' },
  { fault: 'verify-accepts-garbage', id: 'webhooks.verify' },
  { fault: 'oauth-html', id: 'oauth.oauth2-authorize' },
  { fault: 'remove-without-id', id: 'delta.remove-id' },
  {
    fault: 'no-sync-action-field',
    id: 'schema.sync-action',
    also: ['data.sync-action', 'delta.sync-action'],
  },
  { fault: 'malformed-json-html', id: 'errors.malformed-json', also: ['errors.json-body'] },
  { fault: 'datalist-bad-shape', id: 'datalist.response', also: ['datalist.absent-depends-on'] },
  // The probes of what real apps hung or crashed on.
  { fault: 'logo-png', id: 'logo.response' },
  { fault: 'validate-empty-500', id: 'validate.empty-fields' },
  { fault: 'validate-partial-hang', id: 'validate.partial-fields', options: { timeoutMs: 1000 } },
  { fault: 'validate-refuses-system-keys', id: 'validate.stored-account' },
  { fault: 'config-no-account-500', id: 'config.no-account' },
  { fault: 'config-empty-account-html', id: 'config.empty-account', also: ['errors.json-body'] },
  { fault: 'schema-absent-filter-500', id: 'schema.absent-filter' },
  { fault: 'workflow-two-defaults', id: 'schema.options' },
  { fault: 'select-duplicate-options', id: 'schema.options' },
  { fault: 'datalist-not-datalist-hang', id: 'datalist.not-datalist', options: { timeoutMs: 1000 } },
  { fault: 'datalist-absent-depends-on-500', id: 'datalist.absent-depends-on' },
  { fault: 'data-absent-pagination-500', id: 'data.absent-keys' },
  { fault: 'stateful-paging', id: 'data.resume' },
  { fault: 'action-missing-args-200', id: 'actions.missing-args' },
  // Input the service never sends still needs an answer in time.
  { fault: 'unknown-type-hang', id: 'errors.unknown-type', options: { timeoutMs: 1000 } },
];

describe('each broken variant of the reference app', () => {
  it.each(cases)('fault $fault fails $id', async ({ fault, id, also = [], options }) => {
    const report = await runAgainst({ fault }, options);
    expect(report.ok).toBe(false);
    const failed = report.checks.filter((c) => c.status === 'fail');
    expect(failed.map((c) => c.id)).toContain(id);
    expect(failed.find((c) => c.id === id)?.reason).toBeTruthy();
    // Nothing unrelated fails: the variant differs from the reference app in one way only.
    for (const c of failed) expect([id, ...also]).toContain(c.id);
  });

  it.each([
    ['unknown-key', 'data.item-keys', 'has key `ownerName`, which is not a field'],
    [
      'dangling-relation',
      'data.relations',
      "assignee: 3 of 25 references point at no synced user.id (e.g. 'u999')",
    ],
    ['logo-missing', 'logo.response', 'HTTP 404'],
    ['descriptor-sources', 'descriptor.sources', 'the service ignores it'],
    ['filter-accepts-anything', 'filter.invalid', 'the app accepted it'],
    // The service never sends an unknown type: any answer in time with {message} only warns.
    ['unknown-type-500', 'errors.unknown-type', 'HTTP 500; HTTP 404 {message} is expected'],
  ] as const)('fault %s only warns: %s', async (fault, id, reason) => {
    const report = await runAgainst({ fault });
    expect(report.ok).toBe(true);
    expect(withStatus(report, 'warn')).toEqual([id]);
    expect(report.checks.find((c) => c.id === id && c.status === 'warn')?.reason).toContain(reason);
  });

  it('retries a page answered with an error status and tryLater, as the service does', async () => {
    const report = await runAgainst({ fault: 'try-later-429' });
    expect(withStatus(report, 'fail')).toEqual([]);
    expect(report.sync.issue?.count).toBe(25);
    const issuePage2 = report.requests.filter(
      (r) =>
        (r.body as { pagination?: { offset?: number } }).pagination?.offset === 10 &&
        (r.body as { requestedType?: string }).requestedType === 'issue',
    );
    // Twice refused and once answered in the sync, then once more for the resumability proof.
    expect(issuePage2).toHaveLength(4);
  });

  it('says which request showed the failure, with a response excerpt', async () => {
    const report = await runAgainst({ fault: 'items-keyed' });
    const check = report.checks.find((c) => c.id === 'data.items' && c.status === 'fail')!;
    expect(check.title).toContain('(user)');
    expect(check.reason).toContain('`items` is {"u1":');
    expect(check.request).toMatchObject({ method: 'POST', path: '/api/v1/synchronizer/data' });
    expect(check.request?.body).toContain('"requestedType":"user"');
    expect(check.response?.status).toBe(200);
    expect(check.response?.body).toContain('"items":{"u1":');
  });

  it('never probes an OAuth account with empty or partial fields: the service never sends one', async () => {
    // An app that crashes on empty fields: a token account would fail validate.empty-fields.
    const report = await runAgainst(
      { fault: 'validate-empty-500' },
      { authenticationId: 'oauth2', account: { access_token: 'from-the-oauth-flow' } },
    );
    for (const id of ['validate.empty-fields', 'validate.partial-fields']) {
      const check = report.checks.find((c) => c.id === id);
      expect(check).toMatchObject({ status: 'skip', reason: expect.stringContaining('OAuth flow') });
    }
    const validates = report.requests.filter((r) => r.path === '/validate');
    for (const r of validates) expect((r.body as { fields: object }).fields).not.toEqual({});
  });

  it('asks for __syncAction in the schema only from apps that remove rows', async () => {
    const removing = await runAgainst({ fault: 'no-sync-action-field' });
    expect(removing.checks.find((c) => c.id === 'schema.sync-action')).toMatchObject({
      status: 'fail',
      reason: expect.stringContaining('REMOVE rows were sent for user'),
    });
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

  it('skips the action checks without a fixture, with a hint', async () => {
    const report = await runAgainst({}, { actions: [] });
    const check = report.checks.find((c) => c.id === 'actions.fixtures')!;
    expect(check.status).toBe('skip');
    expect(check.reason).toContain('--actions');
  });
});

describe('secrets', () => {
  it('never puts the account secrets into the report', async () => {
    const report = await runAgainst(
      { fault: 'items-keyed' },
      { account: { apiKey: 'secret', region: 'eu' } },
    );
    const check = report.checks.find((c) => c.id === 'data.items' && c.status === 'fail')!;
    expect(check.request?.body).toContain('"apiKey":"***","region":"eu"');
    const { requests: _, ...rest } = report;
    expect(JSON.stringify(rest)).not.toContain('"secret"');
    // Nor what /validate returned under a secret-looking key (a refreshed token).
    expect(check.request?.body).toContain('"sessionToken":"***"');
    expect(JSON.stringify(rest)).not.toContain(SESSION_TOKEN);
  });
});

/** A port that was just free: nothing listens on it. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

describe('an app that is not there', () => {
  it('is one clear error, not a failed check: "is the app running at <url>?"', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const error = await runConformance(url, { timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppUnreachableError);
    expect((error as AppUnreachableError).code).toBe('ECONNREFUSED');
    expect((error as Error).message).toBe(
      `could not connect to ${url} (ECONNREFUSED): is the app running at ${url}?`,
    );
  });
});

describe('an app that goes away during the run', () => {
  it('says once that it stopped accepting connections, names the request it died on, and stops asking', async () => {
    const report = await runAgainst({ fault: 'crash-on-config-no-account' });
    const probe = report.checks.find((c) => c.id === 'config.no-account')!;
    expect(probe.status).toBe('fail');
    const later = report.checks.filter((c) => c.status === 'fail' && c.id !== 'config.no-account');
    expect(later.length).toBeGreaterThan(0);
    for (const check of later) {
      expect(check.reason).toContain(
        'the app stopped accepting connections during the run (ECONNREFUSED): did it crash?',
      );
      expect(check.reason).toContain('It gave no answer to POST /api/v1/synchronizer/config {}');
    }
    // Requests after the crash are not sent: the app saw nothing after the fatal one.
    const fatal = report.requests.findIndex(
      (r) => r.path === '/api/v1/synchronizer/config' && JSON.stringify(r.body) === '{}',
    );
    expect(fatal).toBe(report.requests.length - 1);
  });
});

interface QuirkCase {
  quirk: Quirk;
  /** The only checks that may warn. */
  warns: string[];
  /** A reason that must show, as a pass note or a warning. */
  says?: [string, string];
}

// Each was a false alarm of the kit against real apps the service works with.
const quirks: QuirkCase[] = [
  {
    quirk: 'items-only',
    warns: [],
    says: ['data.pagination', 'no `pagination`: taken as the last page'],
  },
  // Said once, as a note: a later page without it is no new case (it warned on page 2 once).
  {
    quirk: 'no-sync-type',
    warns: [],
    says: ['data.sync-type', 'no `synchronizationType`: taken as a full sync'],
  },
  {
    quirk: 'no-website',
    warns: [],
    says: ['descriptor.recommended', 'descriptor.website: missing (the service does not require it)'],
  },
  {
    quirk: 'never-sent-500',
    warns: ['errors.unknown-type', 'errors.malformed-json', 'errors.missing-requested-type'],
    says: ['errors.unknown-type', 'the service never sends it'],
  },
  { quirk: 'relies-on-system-keys', warns: [] },
  // The service's docs show /validate refusing an account with {error}; it reads either key.
  { quirk: 'error-key', warns: [] },
  {
    quirk: 'workflow-without-options',
    warns: [],
    says: ['schema.field', 'the states are inferred from the values'],
  },
  { quirk: 'optional-keys', warns: [] },
  {
    quirk: 'date-range-objects',
    warns: ['data.value-types', 'delta.value-types'],
    says: ['data.value-types', 'not the JSON string the service takes'],
  },
  {
    quirk: 'loose-answers',
    warns: [],
    says: [
      'schema.field',
      'schema.user.tags.subType: unknown subType "tag-cloud": read as plain array[text]',
    ],
  },
  {
    quirk: 'full-remove',
    warns: [],
    says: ['data.sync-action', 'a REMOVE row in a full answer; it is removed'],
  },
  {
    quirk: 'empty-delta-null',
    warns: [],
    says: ['delta.items', 'data.items: null: read as no rows'],
  },
];

describe('what real apps do and the service accepts', () => {
  it.each(quirks)('quirk $quirk passes (warns only $warns)', async ({ quirk, warns, says }) => {
    const report = await runAgainst({ quirk });
    expect(withStatus(report, 'fail')).toEqual([]);
    expect(report.ok).toBe(true);
    expect([...new Set(withStatus(report, 'warn'))].sort()).toEqual([...warns].sort());
    if (says) {
      const [id, text] = says;
      expect(
        report.checks
          .filter((c) => c.id === id)
          .map((c) => c.reason ?? '')
          .join(' | '),
      ).toContain(text);
    }
    if (quirk === 'loose-answers') {
      // Each looseness is taken, and said so, where the host would take it too.
      const reasons = report.checks.map((c) => c.reason ?? '').join('\n');
      expect(reasons).toContain('descriptor.authentication.token.apiKey.description: missing');
      expect(reasons).toContain(
        'descriptor.authentication.token.apiKey.optional: the string "false" read as false',
      );
      expect(reasons).toContain('config.filters.query.title: missing: the field id is the label');
      expect(reasons).toContain('config.webhooks.enabled: the string "true" read as true');
      expect(reasons).toContain('schema.user.name.name: missing: the label is taken from `title`');
      expect(reasons).toContain('schema.user.name.order: the string "2" read as the number 2');
    }
    if (quirk === 'full-remove') {
      // Removed, not stored: the twelve users the app has, as without the quirk.
      expect(report.sync.user).toMatchObject({ count: 12, synchronizationType: 'full' });
    }
    if (quirk === 'optional-keys') {
      // Every pair synced, the native relation left out of the coverage.
      expect(report.sync.project?.relationCoverage).toEqual({
        owner: { total: 6, resolved: 6 },
        lead: { total: 6, resolved: 6 },
      });
    }
  });

  it('--strict turns warnings into a failed run', async () => {
    const report = await runAgainst({ fault: 'logo-missing' }, { strict: true });
    expect(report.strict).toBe(true);
    expect(withStatus(report, 'fail')).toEqual([]);
    expect(report.ok).toBe(false);
  });
});
