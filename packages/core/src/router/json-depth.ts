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
 */
export function checkJsonDepth(body: Uint8Array, maxDepth: number): void {
  new JsonDepthScan(maxDepth).feed(body);
}

/**
 * checkJsonDepth over a body that arrives in chunks: each is scanned as it comes (a body reader
 * does it while the next chunk is still on its way), and `feed` throws once the bytes so far nest
 * deeper than `maxDepth`. A string is skipped to its closing quote in a loop of its own (a
 * backslash skips the byte after it, in the next chunk if need be), and one table look-up tells
 * every other byte's role: about half the time of testing each byte against each bracket.
 */
export class JsonDepthScan {
  private depth = 0;
  /** the last chunk ended inside a string: OPEN, or ESCAPED right after a backslash */
  private inString = 0;

  constructor(private readonly maxDepth: number) {}

  feed(chunk: Uint8Array): void {
    const n = chunk.length;
    if (n === 0) return;
    let depth = this.depth;
    let i = 0;
    if (this.inString !== 0) {
      const end = stringEnd(chunk, this.inString === ESCAPED ? 1 : 0);
      if (end < 0) {
        this.inString = end === -ESCAPED ? ESCAPED : OPEN;
        return;
      }
      this.inString = 0;
      i = end + 1;
    }
    for (; i < n; i += 1) {
      const role = ROLE[chunk[i]!];
      if (role === 0) continue;
      if (role === 1) {
        i = stringEnd(chunk, i + 1);
        if (i < 0) {
          this.inString = i === -ESCAPED ? ESCAPED : OPEN;
          break;
        }
      } else if (role === 2) {
        depth += 1;
        if (depth > this.maxDepth)
          throw new TooDeepError(`Request body is nested deeper than ${this.maxDepth} levels`);
      } else depth -= 1;
    }
    this.depth = depth;
  }
}

const OPEN = 1;
const ESCAPED = 2;

/**
 * The index of the quote that closes the string going on at `from`, or, when the chunk ends first,
 * -OPEN (-ESCAPED if a backslash ends it: the next chunk's first byte is escaped).
 */
function stringEnd(chunk: Uint8Array, from: number): number {
  const n = chunk.length;
  for (let i = from; i < n; i += 1) {
    const byte = chunk[i];
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH) {
      if (i === n - 1) return -ESCAPED;
      i += 1;
    }
  }
  return -OPEN;
}
