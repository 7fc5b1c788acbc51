/**
 * Reserved words of the date-range grammar, in the order a user meets them.
 * Exposed so that UIs can highlight or complete them.
 */
export const DATE_RANGE_KEYWORDS = [
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
] as const;

/** A reserved word of the grammar. */
export type DateRangeKeyword = (typeof DATE_RANGE_KEYWORDS)[number];

/**
 * Calendar units, singular. Every unit is also accepted in the plural (`days`, `weeks`, ...).
 */
export const DATE_RANGE_UNITS = ['day', 'week', 'month', 'quarter', 'year'] as const;

/** A calendar unit: weeks are ISO weeks (Monday..Sunday), quarters and years are calendar ones. */
export type DateRangeUnit = (typeof DATE_RANGE_UNITS)[number];

const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
] as const;

/** What a (lower-cased) word means to the parser. */
export type WordMeaning =
  | { readonly type: 'keyword'; readonly keyword: DateRangeKeyword }
  | { readonly type: 'unit'; readonly unit: DateRangeUnit }
  | { readonly type: 'month'; readonly month: number };

// Built once so that the hot path is a single Map lookup per word.
const WORDS: ReadonlyMap<string, WordMeaning> = (() => {
  const words = new Map<string, WordMeaning>();
  for (const keyword of DATE_RANGE_KEYWORDS) words.set(keyword, { type: 'keyword', keyword });
  for (const unit of DATE_RANGE_UNITS) {
    const meaning: WordMeaning = { type: 'unit', unit };
    words.set(unit, meaning);
    words.set(`${unit}s`, meaning);
  }
  MONTH_NAMES.forEach((name, index) => {
    const meaning: WordMeaning = { type: 'month', month: index + 1 };
    words.set(name, meaning);
    words.set(name.slice(0, 3), meaning);
  });
  return words;
})();

/** Looks up a lower-cased word; `undefined` when the grammar does not know it. */
export function lookupWord(lower: string): WordMeaning | undefined {
  return WORDS.get(lower);
}

/** English month name (1-based month), for messages. */
export function monthName(month: number): string {
  const name = MONTH_NAMES[month - 1] ?? '';
  return name.charAt(0).toUpperCase() + name.slice(1);
}
