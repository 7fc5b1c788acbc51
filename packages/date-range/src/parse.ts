import type { Operand, Statement } from './ast.js';
import { daysInMonth } from './calendar.js';
import { DateRangeError, spanError, unexpected } from './errors.js';
import { type DateRangeKeyword, type DateRangeUnit, monthName } from './keywords.js';
import { type Token, tokenize } from './tokenize.js';

const EXPECT_STATEMENT =
  'a date (e.g. 22-11-2026), "today", "yesterday", "this", "last", "previous", "between", "from" or "to"';
const EXPECT_OPERAND =
  'a date (e.g. 22-11-2026), "today", "yesterday", "this", "last", "previous" or "<N> <units> ago"';
const EXPECT_COUNT_OR_UNIT = 'a count or a unit (day, week, month, quarter, year)';
const EXPECT_UNIT = 'a unit (days, weeks, months, quarters, years)';
const EXPECT_MONTH = 'a month (1-12 or a name such as Nov)';
const EXPECT_YEAR = 'a 4-digit year';
const MISPLACED_AGO =
  'a date, "today", "yesterday", "this", "last" or "previous" ("<N> <units> ago" is only allowed after "between", "from" or "to")';

/**
 * Recursive-descent parser over a token array. Each method consumes what it recognises and
 * throws a `DateRangeError` pointing at the first token it cannot use.
 */
class Parser {
  private index = 0;

  constructor(
    private readonly input: string,
    private readonly tokens: readonly Token[],
    /** Where "end of input" is reported; differs from `input.length` when parsing a slice. */
    private readonly endPosition: number,
  ) {}

  statement(): Statement {
    const first = this.tokens[0];
    if (first === undefined) {
      throw new DateRangeError(
        'empty',
        `Empty input at position 0 in ${JSON.stringify(this.input)}: expected ${EXPECT_STATEMENT}`,
        this.input,
        0,
        '',
      );
    }
    switch (this.keywordAt(0)) {
      case 'between': {
        this.index++;
        const lower = this.operand(true);
        this.expectKeyword('and');
        const upper = this.operand(true);
        this.expectEnd('end of input');
        return { kind: 'range', lower, upper };
      }
      case 'from': {
        this.index++;
        const lower = this.operand(true);
        if (this.keywordAt(this.index) !== 'to') {
          this.expectEnd('"to" or end of input');
          return { kind: 'range', lower };
        }
        this.index++;
        const upper = this.operand(true);
        this.expectEnd('end of input');
        return { kind: 'range', lower, upper };
      }
      case 'to': {
        this.index++;
        const upper = this.operand(true);
        this.expectEnd('end of input');
        return { kind: 'range', upper };
      }
      default: {
        const operand = this.operand(false);
        this.expectEnd('end of input');
        return { kind: 'single', operand };
      }
    }
  }

  /** Parses one operand that must span all remaining tokens. */
  lone(): Operand {
    const operand = this.operand(true);
    this.expectEnd('end of input');
    return operand;
  }

  private operand(allowAgo: boolean): Operand {
    const token = this.tokens[this.index];
    const expected = allowAgo ? EXPECT_OPERAND : EXPECT_STATEMENT;
    if (token === undefined) return this.fail(expected);
    if (token.kind === 'number') {
      const next = this.tokens[this.index + 1];
      if (next?.meaning?.type === 'unit') {
        return this.ago(allowAgo);
      }
      return this.date();
    }
    if (token.kind === 'dash') {
      this.rejectNegativeCount(true);
      return this.fail(expected);
    }
    if (token.kind !== 'word') return this.fail(expected);
    const { meaning } = token;
    if (meaning?.type === 'unit') return this.ago(allowAgo);
    if (meaning?.type !== 'keyword') return this.fail(expected);
    switch (meaning.keyword) {
      case 'today':
      case 'yesterday':
        this.index++;
        return { kind: meaning.keyword, start: token.start, end: token.end };
      case 'this':
      case 'last':
        return this.relative('current');
      case 'previous':
        return this.relative('previous');
      default:
        return this.fail(expected);
    }
  }

  /** `this|last|previous [N] <unit>`; the anchor keyword is the current token. */
  private relative(kind: 'current' | 'previous'): Operand {
    const start = this.tokens[this.index]!.start;
    this.index++;
    const hasCount = this.tokens[this.index]?.kind === 'number';
    if (!hasCount) this.rejectNegativeCount(false);
    const count = hasCount ? this.count() : 1;
    const unit = this.unit(!hasCount);
    return { kind, count, unit, start, end: this.tokens[this.index - 1]!.end };
  }

  /** `[N] <unit> ago`; starts at the count or the unit. */
  private ago(allowed: boolean): Operand {
    const start = this.tokens[this.index]!.start;
    const count = this.tokens[this.index]!.kind === 'number' ? this.count() : 1;
    const unit = this.unit(false);
    const agoToken = this.tokens[this.index];
    const hasAgo = agoToken !== undefined && this.keywordAt(this.index) === 'ago';
    if (!allowed) {
      const end = hasAgo ? agoToken.end : this.tokens[this.index - 1]!.end;
      throw unexpected(this.input, start, this.input.slice(start, end), MISPLACED_AGO);
    }
    if (!hasAgo) return this.fail('"ago"');
    this.index++;
    return { kind: 'ago', count, unit, start, end: agoToken.end };
  }

  /** Literal `D-M-YYYY` / `D M YYYY` with a numeric or named month; dashes are optional. */
  private date(): Operand {
    const dayToken = this.tokens[this.index]!;
    if (dayToken.text.length > 2) {
      throw spanError(
        'invalid-date',
        'Invalid date',
        this.input,
        dayToken.start,
        dayToken.text,
        'expected a day of 1 or 2 digits (dates are day-month-year, e.g. 22-11-2026)',
      );
    }
    this.index++;
    this.skipDash();
    const monthToken = this.tokens[this.index];
    let month: number;
    if (monthToken?.kind === 'number') {
      month = Number(monthToken.text);
      if (monthToken.text.length > 2 || month < 1 || month > 12) {
        throw spanError(
          'invalid-date',
          'Invalid month',
          this.input,
          monthToken.start,
          monthToken.text,
          'expected a month of 1-12',
        );
      }
    } else {
      const meaning = monthToken?.meaning;
      if (meaning?.type !== 'month') return this.fail(EXPECT_MONTH);
      month = meaning.month;
    }
    this.index++;
    this.skipDash();
    const yearToken = this.tokens[this.index];
    if (yearToken?.kind !== 'number') return this.fail(EXPECT_YEAR);
    const year = Number(yearToken.text);
    if (yearToken.text.length !== 4 || year === 0) {
      throw spanError(
        'invalid-date',
        'Invalid year',
        this.input,
        yearToken.start,
        yearToken.text,
        'expected a 4-digit year from 0001 to 9999',
      );
    }
    this.index++;
    const day = Number(dayToken.text);
    const length = daysInMonth(year, month);
    if (day < 1 || day > length) {
      throw spanError(
        'invalid-date',
        'Invalid date',
        this.input,
        dayToken.start,
        this.input.slice(dayToken.start, yearToken.end),
        `${monthName(month)} ${year} has ${length} days`,
      );
    }
    const calendarDay = { year, month, day };
    return { kind: 'days', first: calendarDay, last: calendarDay, start: dayToken.start, end: yearToken.end };
  }

  private count(): number {
    const token = this.tokens[this.index]!;
    const value = Number(token.text);
    if (value === 0) {
      throw spanError(
        'invalid-count',
        'Invalid count',
        this.input,
        token.start,
        token.text,
        'expected a positive whole number',
      );
    }
    this.index++;
    return value;
  }

  /** Reports `-3` as a bad count rather than as a stray dash, which is what the user got wrong. */
  private rejectNegativeCount(requireUnit: boolean): void {
    const dash = this.tokens[this.index];
    const digits = this.tokens[this.index + 1];
    if (dash?.kind !== 'dash' || digits?.kind !== 'number' || digits.start !== dash.end) return;
    const after = this.tokens[this.index + 2];
    if (requireUnit && after?.meaning?.type !== 'unit') return;
    throw spanError(
      'invalid-count',
      'Invalid count',
      this.input,
      dash.start,
      this.input.slice(dash.start, digits.end),
      'expected a positive whole number',
    );
  }

  private unit(countOptional: boolean): DateRangeUnit {
    const token = this.tokens[this.index];
    const meaning = token?.meaning;
    if (meaning?.type !== 'unit') return this.fail(countOptional ? EXPECT_COUNT_OR_UNIT : EXPECT_UNIT);
    this.index++;
    return meaning.unit;
  }

  private skipDash(): void {
    if (this.tokens[this.index]?.kind === 'dash') this.index++;
  }

  private keywordAt(index: number): DateRangeKeyword | undefined {
    const meaning = this.tokens[index]?.meaning;
    return meaning?.type === 'keyword' ? meaning.keyword : undefined;
  }

  private expectKeyword(keyword: DateRangeKeyword): void {
    if (this.keywordAt(this.index) !== keyword) this.fail(`"${keyword}"`);
    this.index++;
  }

  private expectEnd(expected: string): void {
    if (this.index < this.tokens.length) this.fail(expected);
  }

  private fail(expected: string): never {
    const token = this.tokens[this.index];
    throw token === undefined
      ? unexpected(this.input, this.endPosition, '', expected)
      : unexpected(this.input, token.start, token.text, expected);
  }
}

/** Parses a whole date-range phrase into its syntax tree; throws `DateRangeError` on bad input. */
export function parseStatement(input: string): Statement {
  return new Parser(input, tokenize(input), input.length).statement();
}

/**
 * Parses `input.slice(from, to)` as a single operand (used by lenient mode to retry one side of a
 * range). Positions in errors stay relative to the whole input.
 */
export function parseOperand(input: string, from: number, to: number): Operand {
  return new Parser(input, tokenize(input, from, to), to).lone();
}
