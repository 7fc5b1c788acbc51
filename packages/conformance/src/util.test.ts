import { describe, expect, it } from 'vitest';
import { valueProblem } from './checks/sync.js';
import { mapLimit, stableStringify } from './util.js';

describe('stableStringify', () => {
  it('ignores key order, so deep-equal nextPageConfigs compare equal', () => {
    expect(stableStringify({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      stableStringify({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
    expect(stableStringify({ a: 1 })).not.toBe(stableStringify({ a: '1' }));
  });
});

describe('valueProblem', () => {
  const field = (type: string, extra: Record<string, unknown> = {}) => ({
    id: 'f',
    type,
    subType: undefined,
    ...extra,
  });
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
    const range = field('date', { subType: 'date-range' });
    expect(valueProblem(range, { start: '2026-11-01', end: '2026-11-30' })).toBeUndefined();
    expect(valueProblem(range, '2026-11-01')).toContain('needs {start, end}');
    expect(valueProblem(range, { start: '2026-11-01', end: 'soon' })).toContain('needs {start, end}');
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
