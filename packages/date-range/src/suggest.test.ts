import { describe, expect, it } from 'vitest';
import { suggestDateRange } from './suggest.js';

describe('suggestDateRange', () => {
  it.each([
    ['', ['today', 'yesterday', 'this', 'last', 'previous', 'between', 'from', 'to']],
    ['la', ['last']],
    ['LA', ['last']],
    ['t', ['today', 'this', 'to']],
    ['p', ['previous']],
    ['last', ['last']],
    ['last ', ['last day', 'last week', 'last month', 'last quarter', 'last year']],
    ['last q', ['last quarter']],
    ['last 3 m', ['last 3 months']],
    ['Last  3  M', ['last 3 months']],
    ['last 1 w', ['last 1 week']],
    [
      'previous 2 ',
      ['previous 2 days', 'previous 2 weeks', 'previous 2 months', 'previous 2 quarters', 'previous 2 years'],
    ],
    ['between ', ['between today', 'between yesterday', 'between this', 'between last', 'between previous']],
    ['between 3 months a', ['between 3 months ago']],
    ['between month ', ['between month ago']],
    ['between today ', ['between today and']],
    ['between today and y', ['between today and yesterday']],
    ['between 3 months ago and 2 m', ['between 3 months ago and 2 months']],
    ['from last week t', ['from last week to']],
    ['to y', ['to yesterday']],
    ['last 3 months ', []],
    ['between today and today ', []],
    ['foo', []],
    ['last foo ', []],
    ['3 months ', []],
  ])('%j', (prefix, expected) => {
    expect(suggestDateRange(prefix)).toStrictEqual(expected);
  });
});
