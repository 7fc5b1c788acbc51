import { inspect } from 'node:util';
import { expect, it } from 'vitest';
import { loggable } from '../src/commands/dispatcher.js';
import { describeEachDatabase, useWorkspace } from './support/databases.js';

// The rate limits as budgets: the token's limit counts commands, and what has no known token
// (the /ui pages, API calls with an unknown token) is limited by client address.

describeEachDatabase('rate limit counts commands', (target) => {
  const h = useWorkspace(target, { rateLimit: 3 });

  it('a request of six commands spends six: the next request right after it is a 429', async () => {
    const query = { command: 'svc.schema/query' };
    const { token } = await h.ws.createUser({ name: 'Counted' });
    const six = await h.request('POST', '/api/commands', Array(6).fill(query), token);
    expect(six.status).toBe(200);
    const next = await h.request('POST', '/api/commands', [query], token);
    expect(next.status).toBe(429);
    expect(next.body).toMatchObject({ code: 'rate-limited', message: expect.stringContaining('commands') });
    // Six commands against a bucket of three leave it about three short: a second or more to wait.
    expect(Number(next.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describeEachDatabase('limits by client address', (target) => {
  const h = useWorkspace(target, { addressLimits: { unknownTokensPerMinute: 5, pagesPerMinute: 5 } });

  it('unknown tokens: the address is turned away with a 429 after the limit; known tokens before did not count', async () => {
    for (let i = 0; i < 8; i++) expect((await h.request('GET', '/api/tokens')).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++)
      statuses.push((await h.request('GET', '/api/tokens', undefined, `nope-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const refused = await h.request('GET', '/api/tokens', undefined, 'nope-again');
    expect(refused.body).toEqual({ message: expect.stringContaining('unknown token'), code: 'rate-limited' });
  });

  it('/ui pages: the address is turned away with a 429 after the limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${h.url}/ui/login`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describeEachDatabase('logs of unexpected errors', (target) => {
  const h = useWorkspace(target);

  it('a database error is logged clipped, without its statement and 70,000 parameters', async () => {
    const params = Array.from({ length: 70_000 }, (_, i) => `value-${i}`);
    const sql = `SELECT ${params.map((_, i) => `$${i + 1}::text`).join(', ')} FROM no_such_table`;
    const error = await h.ws.driver.query(sql, params).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const logged = inspect(loggable(error), { depth: 5 });
    expect(logged.length).toBeLessThan(8_000);
    expect(logged).not.toContain('value-69999');
    expect(logged).toMatch(/no_such_table|parameters|bind/);
  });
});
