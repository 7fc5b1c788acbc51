import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkJsonDepth, TooDeepError } from '../src/index.js';
import { JsonDepthScan } from '../src/router/json-depth.js';

// The raw-bytes depth check every JSON body passes before JSON.parse: for any JSON text it must
// refuse exactly the values nested deeper than the limit (brackets inside strings, escaped quotes
// included, do not count), and it must never throw anything but TooDeepError on other bytes.

/** How deep a parsed value nests arrays and objects. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === 'object')
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

const refuses = (body: Buffer, max: number) => {
  try {
    checkJsonDepth(body, max);
    return false;
  } catch (error) {
    expect(error).toBeInstanceOf(TooDeepError);
    return true;
  }
};

// Strings full of what the scan must not count: brackets, quotes and backslashes.
const tricky = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', 'é', '\\"') });
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(tricky, fc.integer(), fc.boolean(), fc.constant(null)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('checkJsonDepth', () => {
  it('refuses exactly the JSON values nested deeper than the limit (property)', () => {
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 8 }), fc.boolean(), (value, max, spaced) => {
        const body = Buffer.from(JSON.stringify(value, null, spaced ? 1 : undefined));
        expect(refuses(body, max)).toBe(depthOf(value) > max);
      }),
      { numRuns: 500 },
    );
  });

  it('takes any bytes without failing otherwise (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: 0, max: 4 }), (bytes, max) => {
        refuses(Buffer.from(bytes), max);
      }),
    );
  });

  it('gives the same verdict for a body fed in chunks, cut anywhere (property)', () => {
    // A body reader scans each chunk as it arrives: a cut inside a string, right after a
    // backslash or between a backslash and the quote it escapes must change nothing.
    const body = fc.oneof(
      json.map((v) => Buffer.from(JSON.stringify(v))),
      fc.uint8Array({ maxLength: 120 }).map((b) => Buffer.from(b)),
    );
    fc.assert(
      fc.property(
        body,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.integer({ min: 0, max: 6 }),
        (b, cuts, max) => {
          const at = [...new Set(cuts.map((c) => c % (b.length + 1)))].sort((x, y) => x - y);
          const scan = new JsonDepthScan(max);
          let refused = false;
          let from = 0;
          try {
            for (const to of [...at, b.length]) {
              scan.feed(b.subarray(from, to));
              from = to;
            }
          } catch (error) {
            expect(error).toBeInstanceOf(TooDeepError);
            refused = true;
          }
          expect(refused).toBe(refuses(b, max));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('counts depth across the edges it has to get right', () => {
    expect(refuses(Buffer.from('[[["]]]]]"]]]'), 3)).toBe(false);
    expect(refuses(Buffer.from('["\\"[[[[", [[[[1]]]]]'), 4)).toBe(true);
    expect(refuses(Buffer.from('["\\\\", [[[1]]]]'), 3)).toBe(true);
    expect(refuses(Buffer.from('{"a\\\\\\"[[[[": {"b": []}}'), 3)).toBe(false);
    expect(refuses(Buffer.from('"unterminated [[[['), 0)).toBe(false);
    expect(refuses(Buffer.from('['.repeat(100_000)), 64)).toBe(true);
  });
});
