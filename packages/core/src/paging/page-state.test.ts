import { afterEach, describe, expect, test } from 'vitest';
import { jsonLogger } from '../logging/logger.js';
import { resolvePageKeys } from './page-keys.js';
import { decodePageState, encodePageState } from './page-state.js';

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
