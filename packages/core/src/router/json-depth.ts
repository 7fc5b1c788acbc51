/** How deep a JSON body may nest by default (arrays and objects). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Thrown (as a 400) by the body parser for a body nested deeper than allowed. */
export class TooDeepError extends Error {
  readonly status = 400;
  readonly expose = true;
  readonly type = 'entity.too.deep';
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Throws when raw JSON nests arrays/objects deeper than `maxDepth`. One pass over the bytes
 * before `JSON.parse`, so a hostile 10 MB `[[[[...` never reaches the parser or the schemas.
 */
export function checkJsonDepth(body: Buffer, maxDepth: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i += 1) {
    const byte = body[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) throw new TooDeepError(`Request body is nested deeper than ${maxDepth} levels`);
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) depth -= 1;
  }
}
