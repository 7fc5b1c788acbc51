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

describe('valueProblem', () => {
  it.each([
    ['text', 'x', true],
    ['text', 1, false],
    ['number', 1.5, true],
    ['number', '1', false],
    ['date', '2026-11-22', true],
    ['date', '2026-11-22T10:00:00.000Z', true],
    ['date', '22/11/2026', false],
    ['date', 1763800000000, false],
    ['array[text]', ['a'], true],
    ['array[text]', 'a', false],
    ['array[text]', [1], false],
    ['id', 7, true],
    ['id', { id: 7 }, false],
    ['text', null, true],
  ])('%s %j ok=%s', (type, value, ok) => {
    expect(valueProblem(field(type), value) === undefined).toBe(ok);
  });

  it('checks sub-types and relations', () => {
    expect(valueProblem(field('number', { subType: 'integer' }), 1.5)).toContain('whole number');
    expect(valueProblem(field('text', { subType: 'boolean' }), true)).toBeUndefined();
    expect(valueProblem(field('array[text]', { subType: 'file' }), [{ name: 'a.pdf' }])).toBeUndefined();
    expect(valueProblem(field('date', { subType: 'day' }), '2026-11-22')).toBeUndefined();
    expect(valueProblem(field('text', { subType: 'multi-select' }), 'red, blue')).toBeUndefined();
    expect(valueProblem(field('text', { subType: 'location' }), '52.5, 13.4')).toBeUndefined();
    const rel = (cardinality: string) => ({
      cardinality,
      name: 'n',
      targetType: 't',
      targetName: 'tn',
      targetFieldId: 'id',
    });
    expect(valueProblem(field('text', { relation: rel('many-to-one') }), 'u1')).toBeUndefined();
    expect(valueProblem(field('text', { relation: rel('many-to-one') }), ['u1'])).toContain('single id');
    expect(valueProblem(field('array[text]', { relation: rel('many-to-many') }), ['u1', 2])).toBeUndefined();
    expect(valueProblem(field('array[text]', { relation: rel('many-to-many') }), 'u1')).toContain(
      'array of ids',
    );
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
        expect(
          judgeValue(range, JSON.stringify({ start: '2020-01-22T08:00:00Z', end: null })),
        ).toBeUndefined();
        expect(judgeValue(range, { start: '2026-11-01', end: '2026-11-30' })).toMatchObject({
          status: 'warn',
          reason: expect.stringContaining('the service takes a JSON string'),
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
