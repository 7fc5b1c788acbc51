import { describe, expect, it } from 'vitest';
import { DATE_RANGE_KEYWORDS, DATE_RANGE_UNITS, lookupWord, monthName } from './keywords.js';

describe('keywords', () => {
  it('lists the grammar words and units', () => {
    expect(DATE_RANGE_KEYWORDS).toStrictEqual([
      'between',
      'and',
      'from',
      'to',
      'this',
      'last',
      'previous',
      'ago',
      'today',
      'yesterday',
    ]);
    expect(DATE_RANGE_UNITS).toStrictEqual(['day', 'week', 'month', 'quarter', 'year']);
  });

  it.each([
    ['between', { type: 'keyword', keyword: 'between' }],
    ['weeks', { type: 'unit', unit: 'week' }],
    ['quarter', { type: 'unit', unit: 'quarter' }],
    ['sep', { type: 'month', month: 9 }],
    ['september', { type: 'month', month: 9 }],
    ['SePtEmBeR', { type: 'month', month: 9 }],
    ['sept', undefined],
    ['se', undefined],
    ['fortnight', undefined],
    ['', undefined],
  ])('lookupWord(%j)', (word, meaning) => {
    expect(lookupWord(word)).toStrictEqual(meaning);
  });

  it('looks up a slice of a longer text', () => {
    expect(lookupWord('last 3 Months', 7, 13)).toStrictEqual({ type: 'unit', unit: 'month' });
    expect(lookupWord('last 3 Months', 7, 12)).toStrictEqual({ type: 'unit', unit: 'month' });
    expect(lookupWord('last 3 Months', 5, 13)).toBeUndefined();
  });

  it('names months for messages', () => {
    expect(monthName(2)).toBe('February');
    expect(monthName(12)).toBe('December');
  });
});
