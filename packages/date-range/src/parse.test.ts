import { describe, expect, it } from 'vitest';
import { parseOperand, parseStatement } from './parse.js';

describe('parseStatement', () => {
  it.each([
    [
      'Last 3 Months',
      { kind: 'single', operand: { kind: 'current', count: 3, unit: 'month', start: 0, end: 13 } },
    ],
    [
      'previous week',
      { kind: 'single', operand: { kind: 'previous', count: 1, unit: 'week', start: 0, end: 13 } },
    ],
    [
      '22-Nov-2026',
      {
        kind: 'single',
        operand: {
          kind: 'days',
          first: { year: 2026, month: 11, day: 22 },
          last: { year: 2026, month: 11, day: 22 },
          start: 0,
          end: 11,
        },
      },
    ],
    [
      'between month ago and today',
      {
        kind: 'range',
        lower: { kind: 'ago', count: 1, unit: 'month', start: 8, end: 17 },
        upper: { kind: 'today', start: 22, end: 27 },
      },
    ],
    ['from yesterday', { kind: 'range', lower: { kind: 'yesterday', start: 5, end: 14 } }],
    ['to 2 days ago', { kind: 'range', upper: { kind: 'ago', count: 2, unit: 'day', start: 3, end: 13 } }],
  ])('%j', (input, ast) => {
    expect(parseStatement(input)).toStrictEqual(ast);
  });
});

describe('parseOperand', () => {
  it('parses a slice and reports positions in the whole input', () => {
    const input = 'between March 5 and last year';
    expect(parseOperand(input, 20, input.length)).toStrictEqual({
      kind: 'current',
      count: 1,
      unit: 'year',
      start: 20,
      end: 29,
    });
    expect(() => parseOperand(input, 8, 16)).toThrow(
      'Unexpected "March" at position 8 in "between March 5 and last year": expected',
    );
  });
});
