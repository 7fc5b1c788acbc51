import { describe, expect, it } from 'vitest';
import { formatReport } from '../src/index.js';
import { runAgainst } from './helpers.js';

describe('formatReport', () => {
  it('prints one line per check, the request and response of failures, the sync summary and the counts', async () => {
    const report = await runAgainst({ fault: 'duplicate-ids' });
    const text = formatReport(report);
    const lines = text.split('\n');
    const fail = lines.findIndex((l) => l.includes('FAIL data.ids-unique'));
    expect(fail).toBeGreaterThan(0);
    expect(lines[fail]).toContain(
      'ids are unique across all pages (user) — id "u1" appears on page 1 and again on page 2',
    );
    expect(lines[fail + 1]).toMatch(
      /^ {7}request: {2}POST \/api\/v1\/synchronizer\/data \{"requestedType":"user"/,
    );
    expect(lines[fail + 2]).toMatch(/^ {7}response: HTTP 200 \{"items":/);
    expect(text).toContain('  PASS descriptor.response: GET / answers 200 with JSON');
    expect(text).toMatch(/ {2}SKIP oauth\.oauth1-authorize: .* — no `oauth` authentication declared/);
    expect(text).toMatch(
      / {2}user: 12 rows in 2 pages \(full\); after delta 11 rows \(1 set, 1 removed, delta\)/,
    );
    expect(text).toContain('relations project 25/25, assignee 25/25, watchers 50/50');
    const { passed, warned, skipped } = report.summary;
    expect(lines.at(-1)).toBe(`${passed} passed, 1 failed, ${warned} warned, ${skipped} skipped`);
    expect(text).not.toContain('\u001b[');
  });

  it('colours the status labels on request', async () => {
    const report = await runAgainst();
    const text = formatReport(report, { color: true });
    expect(text).toContain('\u001b[32mPASS\u001b[0m');
    expect(text).toContain('0 failed');
  });
});
