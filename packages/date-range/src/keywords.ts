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

interface TrieNode {
  meaning: WordMeaning | undefined;
  /** Indexed by letter, a = 0. */
  readonly next: (TrieNode | undefined)[];
}

function trieNode(): TrieNode {
  return { meaning: undefined, next: new Array<TrieNode | undefined>(26).fill(undefined) };
}

// A letter trie, built once, lets the tokenizer look a word up straight from the input's char
// codes: no slicing, lower-casing or string hashing per word on the hot path.
const ROOT: TrieNode = (() => {
  const root = trieNode();
  const add = (word: string, meaning: WordMeaning) => {
    let node = root;
    for (let i = 0; i < word.length; i++) {
      const letter = word.charCodeAt(i) - 97;
      node = node.next[letter] ??= trieNode();
    }
    node.meaning = meaning;
  };
  for (const keyword of DATE_RANGE_KEYWORDS) add(keyword, { type: 'keyword', keyword });
  for (const unit of DATE_RANGE_UNITS) {
    const meaning: WordMeaning = { type: 'unit', unit };
    add(unit, meaning);
    add(`${unit}s`, meaning);
  }
  MONTH_NAMES.forEach((name, index) => {
    const meaning: WordMeaning = { type: 'month', month: index + 1 };
    add(name, meaning);
    add(name.slice(0, 3), meaning);
  });
  return root;
})();

/**
 * Looks up the ASCII letters `text.slice(start, end)`, in any case; `undefined` when the grammar
 * does not know the word.
 */
export function lookupWord(text: string, start = 0, end = text.length): WordMeaning | undefined {
  let node: TrieNode | undefined = ROOT;
  for (let i = start; i < end && node !== undefined; i++) {
    // OR-ing 0x20 lower-cases an ASCII letter; anything else falls outside 0..25 and misses.
    node = node.next[(text.charCodeAt(i) | 0x20) - 97];
  }
  return node?.meaning;
}

/** English month name (1-based month), for messages. */
export function monthName(month: number): string {
  const name = MONTH_NAMES[month - 1] ?? '';
  return name.charAt(0).toUpperCase() + name.slice(1);
}
