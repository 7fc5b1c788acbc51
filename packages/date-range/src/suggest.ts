import { DATE_RANGE_UNITS } from './keywords.js';

const STATEMENT_STARTS = ['today', 'yesterday', 'this', 'last', 'previous', 'between', 'from', 'to'] as const;
const OPERAND_STARTS = ['today', 'yesterday', 'this', 'last', 'previous'] as const;
const SINGULAR_UNITS: readonly string[] = DATE_RANGE_UNITS;
const PLURAL_UNITS: readonly string[] = DATE_RANGE_UNITS.map((unit) => `${unit}s`);

const UNIT_WORDS = new Set([...SINGULAR_UNITS, ...PLURAL_UNITS]);
const NUMBER = /^\d+$/;

/** What may come next, given the words typed so far; `undefined` once the phrase is off-grammar. */
function nextWords(words: readonly string[]): readonly string[] | undefined {
  let expect: 'statement' | 'operand' | 'count-or-unit' | 'unit' | 'ago' | 'after-operand' = 'statement';
  let range: 'between' | 'from' | 'to' | undefined;
  let separated = false;
  let count = '';
  // Whether the current operand began with this/last/previous; otherwise "N units" needs "ago".
  let anchored = false;
  for (const word of words) {
    switch (expect) {
      case 'statement':
      case 'operand':
        if (expect === 'statement' && (word === 'between' || word === 'from' || word === 'to')) {
          range = word;
          expect = 'operand';
        } else if (word === 'today' || word === 'yesterday') {
          expect = 'after-operand';
        } else if (word === 'this' || word === 'last' || word === 'previous') {
          anchored = true;
          expect = 'count-or-unit';
        } else if (range !== undefined && NUMBER.test(word)) {
          anchored = false;
          count = word;
          expect = 'unit';
        } else if (range !== undefined && UNIT_WORDS.has(word)) {
          anchored = false;
          expect = 'ago';
        } else {
          return undefined;
        }
        break;
      case 'count-or-unit':
        if (NUMBER.test(word)) {
          count = word;
          expect = 'unit';
        } else if (UNIT_WORDS.has(word)) {
          expect = 'after-operand';
        } else {
          return undefined;
        }
        break;
      case 'unit':
        if (!UNIT_WORDS.has(word)) return undefined;
        expect = anchored ? 'after-operand' : 'ago';
        break;
      case 'ago':
        if (word !== 'ago') return undefined;
        expect = 'after-operand';
        break;
      case 'after-operand':
        if (!separated && ((range === 'between' && word === 'and') || (range === 'from' && word === 'to'))) {
          separated = true;
          expect = 'operand';
        } else {
          return undefined;
        }
        break;
    }
  }
  switch (expect) {
    case 'statement':
      return STATEMENT_STARTS;
    case 'operand':
      return OPERAND_STARTS;
    case 'count-or-unit':
      return SINGULAR_UNITS;
    case 'unit':
      return count === '1' ? SINGULAR_UNITS : PLURAL_UNITS;
    case 'ago':
      return ['ago'];
    case 'after-operand':
      if (!separated && range === 'between') return ['and'];
      if (!separated && range === 'from') return ['to'];
      return [];
  }
}

/**
 * Completions for a partly typed phrase, for autocomplete UIs: the typed words (lower-cased,
 * single-spaced) followed by each grammar word that can come next and starts with the last,
 * unfinished word. Numbers and literal dates are never suggested.
 *
 * @example
 * suggestDateRange('la'); // => ['last']
 * suggestDateRange('last 3 m'); // => ['last 3 months']
 */
export function suggestDateRange(prefix: string): string[] {
  const words = prefix
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
  const partial = /\S$/.test(prefix) ? (words.pop() ?? '') : '';
  const candidates = nextWords(words);
  if (candidates === undefined) return [];
  const head = words.length === 0 ? '' : `${words.join(' ')} `;
  return candidates.filter((word) => word.startsWith(partial)).map((word) => head + word);
}
