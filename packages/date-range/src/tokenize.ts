import { lookupWord, type WordMeaning } from './keywords.js';

/** Kinds of token: letters, digits, a dash, or any other single character. */
export type TokenKind = 'word' | 'number' | 'dash' | 'other';

/** A slice of the input. `end` is exclusive. */
export interface Token {
  readonly kind: TokenKind;
  /** The text as typed. */
  readonly text: string;
  /** What a word means to the grammar, looked up once here; `undefined` for unknown words and non-words. */
  readonly meaning: WordMeaning | undefined;
  readonly start: number;
  readonly end: number;
}

function isLetter(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function isSpace(code: number): boolean {
  // Covers ASCII whitespace plus the no-break and other Unicode spaces users paste from documents.
  return code === 32 || (code >= 9 && code <= 13) || code === 160 || (code >= 0x2000 && code <= 0x200a);
}

/**
 * Splits `input` into tokens, dropping whitespace. Runs of letters and runs of digits are single
 * tokens; every other character is a token of its own, so errors can point at it exactly.
 */
export function tokenize(input: string, from = 0, to = input.length): Token[] {
  const tokens: Token[] = [];
  let i = from;
  while (i < to) {
    const code = input.charCodeAt(i);
    if (isSpace(code)) {
      i++;
      continue;
    }
    const start = i;
    let kind: TokenKind;
    if (isLetter(code)) {
      kind = 'word';
      do i++;
      while (i < to && isLetter(input.charCodeAt(i)));
    } else if (isDigit(code)) {
      kind = 'number';
      do i++;
      while (i < to && isDigit(input.charCodeAt(i)));
    } else {
      kind = code === 45 ? 'dash' : 'other';
      // Keep surrogate pairs together so an emoji is reported as one character.
      i += code >= 0xd800 && code <= 0xdbff && i + 1 < to ? 2 : 1;
    }
    const text = input.slice(start, i);
    tokens.push({
      kind,
      text,
      meaning: kind === 'word' ? lookupWord(input, start, i) : undefined,
      start,
      end: i,
    });
  }
  return tokens;
}
