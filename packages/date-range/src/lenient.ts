import { casual, type ParsedComponents } from 'chrono-node';
import type { Operand, Statement } from './ast.js';
import { type CalendarDay, toDate } from './calendar.js';
import { DateRangeError } from './errors.js';
import { evaluate } from './evaluate.js';
import type { DateRangeKeyword } from './keywords.js';
import type { WallClock } from './now.js';
import { parseOperand } from './parse.js';
import { type Token, tokenize } from './tokenize.js';
import type { DateRange } from './types.js';

function keywordOf(token: Token | undefined): DateRangeKeyword | undefined {
  const meaning = token?.meaning;
  return meaning?.type === 'keyword' ? meaning.keyword : undefined;
}

function referenceDate(now: WallClock): Date {
  const reference = toDate(now);
  reference.setHours(now.hour, now.minute, now.second);
  return reference;
}

/**
 * Asks chrono-node about `input.slice(from, to)`. Only for literal dates: text containing any of
 * the grammar's own words is left alone, so chrono cannot reinterpret e.g. "3 months ago" (which
 * the strict grammar deliberately rejects as a statement) or "next week" in its own way.
 */
function chronoOperand(input: string, from: number, to: number, now: WallClock): Operand | undefined {
  const tokens = tokenize(input, from, to);
  const first = tokens[0];
  const last = tokens[tokens.length - 1];
  if (first === undefined || last === undefined) return undefined;
  for (const token of tokens) {
    if (token.meaning !== undefined && token.meaning.type !== 'month') return undefined;
  }
  const text = input.slice(first.start, last.end);
  const results = casual.parse(text, referenceDate(now));
  const result = results[0];
  // Anything chrono skipped over would be silently ignored, so demand it read the whole text.
  if (
    results.length !== 1 ||
    result === undefined ||
    result.index !== 0 ||
    result.text.length !== text.length
  ) {
    return undefined;
  }
  const firstDay = dayOf(result.start);
  const lastDay = result.end === undefined || result.end === null ? firstDay : dayOf(result.end);
  if (firstDay === undefined || lastDay === undefined) return undefined;
  if (toDate(lastDay).getTime() < toDate(firstDay).getTime()) return undefined;
  return { kind: 'days', first: firstDay, last: lastDay, start: first.start, end: last.end };
}

function dayOf(components: ParsedComponents): CalendarDay | undefined {
  // "March" alone means the whole month to a user but March 1st to chrono: only use results that
  // name a day (a date or a weekday), not a month or year alone.
  if (!components.isCertain('day') && !components.isCertain('weekday')) return undefined;
  const year = components.get('year');
  const month = components.get('month');
  const day = components.get('day');
  if (year === null || month === null || day === null || year < 1 || year > 9999) return undefined;
  return { year, month, day };
}

function operandAt(input: string, from: number, to: number, now: WallClock): Operand | undefined {
  try {
    return parseOperand(input, from, to);
  } catch (error) {
    if (!(error instanceof DateRangeError)) throw error;
    return chronoOperand(input, from, to, now);
  }
}

/** Tries every `and`/`to` as the split point, since chrono phrases may not contain them. */
function lenientStatement(input: string, now: WallClock): Statement | undefined {
  const tokens = tokenize(input);
  const head = tokens[0];
  if (head === undefined) return undefined;
  const keyword = keywordOf(head);
  if (keyword === 'between' || keyword === 'from') {
    const separator = keyword === 'between' ? 'and' : 'to';
    for (let i = 2; i < tokens.length; i++) {
      const split = tokens[i]!;
      if (keywordOf(split) !== separator) continue;
      const lower = operandAt(input, head.end, split.start, now);
      const upper = lower && operandAt(input, split.end, input.length, now);
      if (lower !== undefined && upper !== undefined) return { kind: 'range', lower, upper };
    }
    if (keyword === 'between') return undefined;
    const lower = operandAt(input, head.end, input.length, now);
    return lower && { kind: 'range', lower };
  }
  if (keyword === 'to') {
    const upper = operandAt(input, head.end, input.length, now);
    return upper && { kind: 'range', upper };
  }
  const operand = chronoOperand(input, 0, input.length, now);
  return operand && { kind: 'single', operand };
}

/**
 * Second chance for input the strict grammar rejected: the same statements, but operands the
 * grammar cannot read are handed to chrono-node's casual parser. `undefined` if that fails too.
 */
export function parseLenient(input: string, now: WallClock, today: Date): DateRange | undefined {
  const statement = lenientStatement(input, now);
  return statement && evaluate(statement, today, input);
}
