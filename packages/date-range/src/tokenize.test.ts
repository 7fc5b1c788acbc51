import { describe, expect, it } from 'vitest';
import { tokenize } from './tokenize.js';

describe('tokenize', () => {
  it('splits words, numbers, dashes and other characters, with offsets', () => {
    expect(
      tokenize(' Last 3-Nov,\t2026 ').map((t) => [t.kind, t.text, t.lower, t.start, t.end]),
    ).toStrictEqual([
      ['word', 'Last', 'last', 1, 5],
      ['number', '3', '3', 6, 7],
      ['dash', '-', '-', 7, 8],
      ['word', 'Nov', 'nov', 8, 11],
      ['other', ',', ',', 11, 12],
      ['number', '2026', '2026', 13, 17],
    ]);
  });

  it('treats no-break spaces as whitespace and keeps surrogate pairs whole', () => {
    expect(tokenize('today\u00a0😀').map((t) => t.text)).toStrictEqual(['today', '😀']);
  });

  it('tokenizes a slice, keeping offsets relative to the whole input', () => {
    expect(tokenize('between a and b', 8, 13).map((t) => [t.text, t.start])).toStrictEqual([
      ['a', 8],
      ['and', 10],
    ]);
  });

  it('returns nothing for whitespace', () => {
    expect(tokenize(' \t\n ')).toStrictEqual([]);
  });
});
