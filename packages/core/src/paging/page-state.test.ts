import { afterEach, describe, expect, test } from 'vitest';
import { jsonLogger } from '../logging/logger.js';
import { resolvePageKeys } from './page-keys.js';
import fc from 'fast-check';
import { decodePageState, encodePageState, readState, readWire, stateJson, wire } from './page-state.js';

const saved = process.env.WEFT_PAGE_KEYS;
afterEach(() => {
  if (saved === undefined) delete process.env.WEFT_PAGE_KEYS;
  else process.env.WEFT_PAGE_KEYS = saved;
});

describe('page keys', () => {
  test('WEFT_PAGE_KEYS: comma-separated, the first signs, every one verifies', () => {
    process.env.WEFT_PAGE_KEYS = ' new-key , old-key ,';
    const keys = resolvePageKeys(
      undefined,
      jsonLogger(() => {}),
    );
    expect(keys.sign.toString()).toBe('new-key');
    expect(keys.verify.map(String)).toEqual(['new-key', 'old-key']);
  });
  test('explicit keys win over the environment', () => {
    process.env.WEFT_PAGE_KEYS = 'env-key';
    expect(
      resolvePageKeys(
        ['given'],
        jsonLogger(() => {}),
      ).sign.toString(),
    ).toBe('given');
  });
  test('without any key: one random key per process, the same for every router', () => {
    delete process.env.WEFT_PAGE_KEYS;
    const lines: string[] = [];
    const a = resolvePageKeys(
      undefined,
      jsonLogger((l) => lines.push(l)),
    );
    const b = resolvePageKeys(
      undefined,
      jsonLogger((l) => lines.push(l)),
    );
    expect(a.sign.equals(b.sign)).toBe(true);
    expect(a.sign.length).toBe(32);
  });
});

describe('signed page state', () => {
  const keys = resolvePageKeys(
    ['k1'],
    jsonLogger(() => {}),
  );
  test('round trip of any JSON cursor, whatever a store does to the key order of the object', () => {
    const cursor = { b: [1, 'two', { c: null }], a: 'x' };
    const encoded = encodePageState('issue', { cursor, skip: 3 }, keys);
    const reordered = Object.fromEntries(Object.entries(encoded).reverse());
    expect(decodePageState('issue', reordered, keys)).toEqual({ cursor, skip: 3 });
  });
  test('a changed state with the old signature is refused', () => {
    const encoded = encodePageState('issue', { cursor: 1, skip: 0 }, keys);
    const other = encodePageState('issue', { cursor: 999, skip: 0 }, keys);
    expect(decodePageState('issue', { ...encoded, state: other.state }, keys)).toMatch(/not signed/);
  });
});

describe('the direct checks of a page state agree with its zod schemas', () => {
  // Near misses of each field (wrong type, at and past each limit, counted in UTF-16 units and
  // in code points, extra keys, arrays), then anything at all.
  const text = (limit: number) =>
    fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom(limit - 1, limit, limit + 1).map((n) => 'x'.repeat(n)),
      // Astral characters: two UTF-16 units, one code point.
      fc.constantFrom(limit / 2, limit / 2 + 1, limit, limit + 1).map((n) => '😀'.repeat(n)),
      fc.constantFrom<unknown>(null, 7, undefined, ['a'], {}),
    );
  const wireLike = fc.oneof(
    fc.record(
      {
        weft: fc.constantFrom<unknown>(2, '2', 1, null),
        type: text(1_000),
        state: text(64 * 1024),
        sig: text(200),
        extra: fc.anything(),
      },
      { requiredKeys: [] },
    ),
    fc.anything(),
  );
  const stateLike = fc.oneof(
    fc.record(
      {
        c: fc.anything(),
        s: fc.oneof(
          fc.integer(),
          fc.constantFrom(
            -0,
            0.5,
            -1,
            Number.MAX_SAFE_INTEGER,
            2 ** 53,
            Number.NaN,
            Number.POSITIVE_INFINITY,
          ),
          fc.anything(),
        ),
      },
      { requiredKeys: [] },
    ),
    fc.anything(),
  );
  const verdict = <T>(parsed: { success: true; data: T } | { success: false }) =>
    parsed.success ? parsed.data : undefined;

  test('nextPageConfig', () => {
    fc.assert(
      fc.property(wireLike, (value) => {
        expect(readWire(value)).toEqual(verdict(wire.safeParse(value)));
      }),
      { numRuns: 400 },
    );
  });
  test('the decoded state', () => {
    fc.assert(
      fc.property(stateLike, (value) => {
        const direct = readState(value);
        const zod = verdict(stateJson.safeParse(value));
        expect(direct).toEqual(zod);
        // Object.is: a -0 skip or a NaN would pass toEqual's looser number comparison.
        if (direct && zod) expect(Object.is(direct.s, zod.s)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
});
