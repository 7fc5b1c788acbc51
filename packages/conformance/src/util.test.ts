import { describe, expect, it } from 'vitest';
import { judgeValue, valueProblem } from './checks/values.js';
import { mapLimit, stableStringify } from './util.js';

describe('stableStringify', () => {
  it('ignores key order, so deep-equal nextPageConfigs compare equal', () => {
    expect(stableStringify({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      stableStringify({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
    expect(stableStringify({ a: 1 })).not.toBe(stableStringify({ a: '1' }));
  });
});

const field = (type: string, extra: Record<string, unknown> = {}) => ({
  id: 'f',
  type,
  subType: undefined,
  ...extra,
});

describe('judgeValue: values read as the host reads them', () => {
  // pass (undefined), warn (the service takes it only by coercing it) or fail (it is lost).
  const verdict = (f: ReturnType<typeof field>, value: unknown) => judgeValue(f, value)?.status ?? 'pass';
  it.each([
    ['text', 'x', 'pass'],
    ['text', 1, 'warn'],
    ['text', { a: 1 }, 'warn'],
    ['number', 1.5, 'pass'],
    ['number', '1', 'warn'],
    ['number', 'many', 'fail'],
    ['date', '2026-11-22', 'pass'],
    ['date', '2026-11-22T10:00:00.000Z', 'pass'],
    ['date', '2026-3-5', 'warn'],
    ['date', '10/29/2026, 9:56 PM', 'warn'],
    ['date', '22/11/2026', 'fail'],
    ['date', 1763800000000, 'warn'],
    ['array[text]', ['a'], 'pass'],
    ['array[text]', 'a', 'warn'],
    ['array[text]', [1], 'warn'],
    ['id', 7, 'pass'],
    ['id', { id: 7 }, 'fail'],
    ['text', null, 'pass'],
  ])('%s %j: %s', (type, value, expected) => {
    expect(verdict(field(type), value)).toBe(expected);
  });

  it("checks sub-types and relations, in the host's words", () => {
    expect(judgeValue(field('number', { subType: 'integer' }), 1.5)).toMatchObject({
      status: 'warn',
      reason: expect.stringContaining('fraction sent for a whole number (rounded)'),
    });
    expect(valueProblem(field('number', { subType: 'integer' }), 'x')).toContain('needs a whole number');
    expect(valueProblem(field('text', { subType: 'boolean' }), true)).toBeUndefined();
    expect(valueProblem(field('text', { subType: 'boolean' }), 'yes')).toBeUndefined();
    expect(valueProblem(field('text', { subType: 'boolean' }), { on: 1 })).toContain('needs a boolean');
    expect(valueProblem(field('array[text]', { subType: 'file' }), [{ name: 'a.pdf' }])).toBeUndefined();
    expect(valueProblem(field('date', { subType: 'day' }), '2026-11-22')).toBeUndefined();
    // A list of HTML or Markdown parts is one rich-text document (the service's Intercom app).
    const parts = ['<p>Hi</p>', null, '<p>Reply</p>'];
    expect(valueProblem(field('array[text]', { subType: 'html' }), parts)).toBeUndefined();
    expect(valueProblem(field('array[text]', { subType: 'md' }), '*one part*')).toBeUndefined();
    expect(valueProblem(field('text', { subType: 'html' }), parts)).toContain('text needs a string');
    expect(valueProblem(field('array[text]', { subType: 'html' }), [{ p: 1 }])).toContain('needs a string');
    expect(valueProblem(field('text', { subType: 'multi-select' }), 'red, blue')).toBeUndefined();
    expect(valueProblem(field('text', { subType: 'location' }), '52.5, 13.4')).toBeUndefined();
    expect(valueProblem(field('text', { subType: 'location' }), 'here')).toContain('latitude');
    const rel = (cardinality: string) => ({
      cardinality,
      name: 'n',
      targetType: 't',
      targetName: 'tn',
      targetFieldId: 'id',
    });
    const one = field('text', { relation: rel('many-to-one') });
    const many = field('array[text]', { relation: rel('many-to-many') });
    expect(judgeValue(one, 'u1')).toBeUndefined();
    expect(judgeValue(one, ['u1'])).toMatchObject({
      status: 'warn',
      reason: expect.stringContaining('first id kept'),
    });
    expect(judgeValue(many, ['u1', 2])).toBeUndefined();
    expect(judgeValue(many, 'u1')).toMatchObject({
      status: 'warn',
      reason: expect.stringContaining('single id'),
    });
    expect(judgeValue(many, '["u1","u2"]')).toMatchObject({
      status: 'warn',
      reason: expect.stringContaining('sent as a JSON string'),
    });
    expect(valueProblem(many, [{ name: 'no id' }])).toContain('needs ids');
    expect(valueProblem(one, { id: 'u1' })).toBeUndefined();
  });
});

describe('date-range values', () => {
  // The service takes a range as a JSON string; core and older apps send an object.
  it.each(['text', 'date'])(
    '%s/date-range: a JSON string passes, an object warns, anything else fails',
    (type) => {
      for (const subType of ['date-range', 'date-time-range']) {
        const range = field(type, { subType });
        expect(judgeValue(range, '{"start":"2020-01-22","end":"2020-08-19"}')).toBeUndefined();
        // Open on one side: the host stores the one day it names, and the kit says so.
        expect(judgeValue(range, JSON.stringify({ start: '2020-01-22T08:00:00Z', end: null }))).toMatchObject(
          {
            status: 'warn',
            reason: expect.stringContaining('open date range (one side missing), stored as the one day'),
          },
        );
        expect(judgeValue(range, { start: '2026-11-01', end: '2026-11-30' })).toMatchObject({
          status: 'warn',
          reason: expect.stringContaining('not the JSON string the service takes'),
        });
        expect(judgeValue(range, '2026-11-01')).toMatchObject({ status: 'fail' });
        expect(judgeValue(range, '{"start":"soon","end":"2026-11-30"}')).toMatchObject({ status: 'fail' });
        expect(judgeValue(range, { start: '2026-11-01', end: 'soon' })).toMatchObject({ status: 'fail' });
        expect(judgeValue(range, '{}')).toMatchObject({ status: 'fail' });
      }
    },
  );
});

describe('mapLimit', () => {
  it('keeps order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapLimit([5, 1, 3, 2, 4], 2, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, n));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 30, 20, 40]);
    expect(peak).toBe(2);
  });
});
