/** How deep a JSON body may nest by default (arrays and objects). */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** Thrown (as a 400) by the body parser for a body nested deeper than allowed. */
export class TooDeepError extends Error {
  readonly status = 400;
  readonly expose = true;
  readonly type = 'entity.too.deep';
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** What each byte is to the scan: most are nothing (0); quotes (1), openings (2), closings (3). */
const ROLE = new Uint8Array(256);
ROLE[QUOTE] = 1;
ROLE[0x7b] = 2; // {
ROLE[0x5b] = 2; // [
ROLE[0x7d] = 3; // }
ROLE[0x5d] = 3; // ]

/**
 * Throws when raw JSON nests arrays/objects deeper than `maxDepth`. One pass over the bytes
 * before `JSON.parse`, so a hostile 10 MB `[[[[...` never reaches the parser or the schemas.
 * A string is skipped to its closing quote in a loop of its own (a backslash skips the byte after
 * it), and one table look-up tells every other byte's role: about half the time of testing each
 * byte against each bracket, on every request body.
 */
export function checkJsonDepth(body: Buffer, maxDepth: number): void {
  let depth = 0;
  const n = body.length;
  for (let i = 0; i < n; i += 1) {
    const role = ROLE[body[i]!];
    if (role === 0) continue;
    if (role === 1) {
      for (i += 1; i < n; i += 1) {
        const byte = body[i];
        if (byte === QUOTE) break;
        if (byte === BACKSLASH) i += 1;
      }
    } else if (role === 2) {
      depth += 1;
      if (depth > maxDepth) throw new TooDeepError(`Request body is nested deeper than ${maxDepth} levels`);
    } else depth -= 1;
  }
}
