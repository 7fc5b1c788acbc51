import { describe, expect, it } from 'vitest';
import { tokenize } from './tokenize.js';

describe('tokenize', () => {
  it('splits words, numbers, dashes and other characters, with offsets and word meanings', () => {
    expect(
      tokenize(' Last 3-Nov,\t2026 ').map((t) => [t.kind, t.text, t.meaning, t.start, t.end]),
    ).toStrictEqual([
      ['word', 'Last', { type: 'keyword', keyword: 'last' }, 1, 5],
      ['number', '3', undefined, 6, 7],
      ['dash', '-', undefined, 7, 8],
      ['word', 'Nov', { type: 'month', month: 11 }, 8, 11],
      ['other', ',', undefined, 11, 12],
      ['number', '2026', undefined, 13, 17],
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
