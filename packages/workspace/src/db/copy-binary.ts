// COPY's binary format: a signature and header, then per row a field count and each field as its
// length and bytes (the type's binary form, -1 for null), then a trailer. The server takes each
// value as stored instead of parsing its text: on the workspace bench, a quarter less of PGlite's
// time for a COPY (text to timestamps, numerics and uuids is most of its parsing) and a sixth less
// of a Postgres server's.
//
// The writers take only the values the create path sends to a COPY (see created-result.ts,
// exactOutput): safe integers, canonical decimals, `YYYY-MM-DD` days and `YYYY-MM-DDTHH:MM:SS.sssZ`
// times in years 1000-9999, uuids, well-formed strings. For anything else a writer writes nothing
// and answers false, and the caller abandons its COPY (entity-store's copyCreated): a value is
// never stored other than as it would read from text.

/** The column types a binary COPY carries. */
const BINARY_TYPE_NAMES = ['uuid', 'text', 'bigint', 'numeric', 'boolean', 'date', 'timestamptz'] as const;
export type BinaryType = (typeof BINARY_TYPE_NAMES)[number];

const BINARY_TYPES = new Set<string>(BINARY_TYPE_NAMES);
export const isBinaryType = (sqlType: string): sqlType is BinaryType => BINARY_TYPES.has(sqlType);

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** 2^32, to split an integer into the two halves of an int8 */
const WORD = 4_294_967_296;
/** Postgres' epoch (2000-01-01) in milliseconds of the Unix one. */
const EPOCH_MS = 946_684_800_000;
/** 1970-01-01 to 2000-01-01 in days. */
const EPOCH_DAYS = 10_957;
const NUMERIC_NEG = 0x4000;

/** Each ASCII code's value as a hex digit, -1 where it is none. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX[97 + i] = 10 + i;
  HEX[65 + i] = 10 + i;
}

/** Days from 1970-01-01 to a proleptic Gregorian day (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

/** The number the digits of `s` from `at` to `end` write, or -1 where one is not a digit. */
function digits(s: string, at: number, end: number): number {
  let n = 0;
  for (let i = at; i < end; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** The day `s` starts with (`YYYY-MM-DD`, years 1000-9999), in days since 1970; NaN when it is none. */
function dayOf(s: string): number {
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return Number.NaN;
  const y = digits(s, 0, 4);
  const m = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  if (y < 1000 || m < 1 || m > 12 || d < 1 || d > 31) return Number.NaN;
  return daysFromCivil(y, m, d);
}

/**
 * Big-endian stores into a chunk without Buffer's own range checks (its write*BE methods check
 * every value and offset; here `room` has made the space and every value is in range by
 * construction). A Uint8Array store keeps a number's low 8 bits, so one store per byte of the
 * value shifted right gives its two's-complement bytes, negative values included.
 */
function put16(buf: Buffer, v: number, at: number): void {
  buf[at] = v >>> 8;
  buf[at + 1] = v;
}

function put32(buf: Buffer, v: number, at: number): void {
  buf[at] = v >>> 24;
  buf[at + 1] = v >>> 16;
  buf[at + 2] = v >>> 8;
  buf[at + 3] = v;
}

/**
 * Rows in COPY's binary format, made into chunks of whole rows (`take`) that are sent one after
 * the other: the first starts with the header, `end` is the trailer.
 */
export class BinaryRows {
  private buf: Buffer;
  private at = 0;

  constructor(private readonly chunkBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(chunkBytes);
    SIGNATURE.copy(this.buf, 0);
    // flags, then the length of the header's extension: both none
    put32(this.buf, 0, 11);
    put32(this.buf, 0, 15);
    this.at = 19;
  }

  /** The bytes written since the last take, as a chunk of their own. */
  take(): Buffer {
    const out = this.buf.subarray(0, this.at);
    this.buf = Buffer.allocUnsafe(this.chunkBytes);
    this.at = 0;
    return out;
  }

  /** The trailer, once every row is written and taken. */
  static end(): Buffer {
    return Buffer.from([0xff, 0xff]);
  }

  /** Starts a row of `fields` values. */
  row(fields: number): void {
    this.room(2);
    put16(this.buf, fields, this.at);
    this.at += 2;
  }

  null(): void {
    this.room(4);
    put32(this.buf, -1, this.at);
    this.at += 4;
  }

  /**
   * A value of a column of `type` (undefined: a column whose values this format does not carry,
   * which takes null only): null for null or undefined; false, and nothing written, for a value
   * it cannot carry.
   */
  value(type: BinaryType | undefined, v: unknown): boolean {
    if (v === null || v === undefined) {
      this.null();
      return true;
    }
    switch (type) {
      case undefined:
        return false;
      case 'text':
        if (typeof v !== 'string') return false;
        this.text(v);
        return true;
      case 'uuid':
        return typeof v === 'string' && this.uuid(v);
      case 'bigint':
        if (typeof v !== 'number' || !Number.isSafeInteger(v)) return false;
        this.int8(v);
        return true;
      case 'numeric':
        return typeof v === 'string' && this.numeric(v);
      case 'boolean':
        if (typeof v !== 'boolean') return false;
        this.room(5);
        put32(this.buf, 1, this.at);
        this.buf[this.at + 4] = v ? 1 : 0;
        this.at += 5;
        return true;
      case 'date':
        return typeof v === 'string' && this.date(v);
      case 'timestamptz':
        return typeof v === 'string' && this.timestamp(v);
    }
  }

  /** A string as UTF-8 text (the server's encoding). */
  text(s: string): void {
    const n = s.length;
    this.room(4 + 3 * n);
    const { buf } = this;
    const start = this.at + 4;
    // Most values are short ASCII: written here, without a call into the runtime per value.
    let i = 0;
    if (n <= 64) {
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + i] = c;
      }
    }
    const bytes = i === n ? n : i + buf.write(s.slice(i), start + i, 'utf8');
    put32(buf, bytes, this.at);
    this.at = start + bytes;
  }

  /** A timestamp given in microseconds since the Unix epoch (a safe integer). */
  micros(us: number): void {
    this.int8(us - EPOCH_MS * 1000);
  }

  private int8(n: number): void {
    this.room(12);
    const hi = Math.floor(n / WORD);
    put32(this.buf, 8, this.at);
    put32(this.buf, hi, this.at + 4);
    put32(this.buf, n - hi * WORD, this.at + 8);
    this.at += 12;
  }

  private uuid(s: string): boolean {
    if (s.length !== 36) return false;
    this.room(20);
    const { buf } = this;
    let o = this.at + 4;
    for (let i = 0; i < 36; ) {
      if (i === 8 || i === 13 || i === 18 || i === 23) {
        if (s.charCodeAt(i) !== 45) return false;
        i++;
        continue;
      }
      const a = s.charCodeAt(i);
      const b = s.charCodeAt(i + 1);
      const hi = a < 128 ? HEX[a]! : -1;
      const lo = b < 128 ? HEX[b]! : -1;
      if (hi < 0 || lo < 0) return false;
      buf[o++] = (hi << 4) | lo;
      i += 2;
    }
    put32(buf, 16, this.at);
    this.at += 20;
    return true;
  }

  /**
   * A decimal written `-?digits(.digits)?` as a numeric: base-10000 digits aligned on the point,
   * its display scale the number of digits after it. The server strips leading and trailing zero
   * digits itself (as it does for the same text), so "0" and "1.50" need no care here.
   */
  private numeric(s: string): boolean {
    const neg = s.charCodeAt(0) === 45;
    const from = neg ? 1 : 0;
    let dot = s.indexOf('.', from);
    if (dot < 0) dot = s.length;
    const intLen = dot - from;
    const fracLen = dot === s.length ? 0 : s.length - dot - 1;
    if (intLen < 1 || (dot < s.length && fracLen < 1)) return false;
    const intGroups = Math.ceil(intLen / 4);
    const fracGroups = Math.ceil(fracLen / 4);
    const ndigits = intGroups + fracGroups;
    this.room(12 + 2 * ndigits);
    const { buf } = this;
    let o = this.at + 12;
    // The integer part's groups, the first one short when its length is not a multiple of 4.
    let end = from + (intLen % 4 || 4);
    for (let start = from; start < dot; start = end, end += 4) {
      const g = digits(s, start, end);
      if (g < 0) return false;
      put16(buf, g, o);
      o += 2;
    }
    // The fraction's groups, the last one filled with zeros on the right.
    for (let start = dot + 1; start < s.length; start += 4) {
      const stop = Math.min(s.length, start + 4);
      let g = digits(s, start, stop);
      if (g < 0) return false;
      for (let k = stop - start; k < 4; k++) g *= 10;
      put16(buf, g, o);
      o += 2;
    }
    put32(buf, 8 + 2 * ndigits, this.at);
    put16(buf, ndigits, this.at + 4);
    put16(buf, intGroups - 1, this.at + 6);
    put16(buf, neg ? NUMERIC_NEG : 0, this.at + 8);
    put16(buf, fracLen, this.at + 10);
    this.at = o;
    return true;
  }

  private date(s: string): boolean {
    if (s.length !== 10) return false;
    const days = dayOf(s);
    if (Number.isNaN(days)) return false;
    this.room(8);
    put32(this.buf, 4, this.at);
    put32(this.buf, days - EPOCH_DAYS, this.at + 4);
    this.at += 8;
    return true;
  }

  /** `YYYY-MM-DDTHH:MM:SS.sssZ` (what toISOString prints), in microseconds since 2000. */
  private timestamp(s: string): boolean {
    if (s.length !== 24 || s.charCodeAt(10) !== 84 || s.charCodeAt(19) !== 46 || s.charCodeAt(23) !== 90)
      return false;
    if (s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return false;
    const days = dayOf(s);
    const h = digits(s, 11, 13);
    const mi = digits(s, 14, 16);
    const sec = digits(s, 17, 19);
    const ms = digits(s, 20, 23);
    if (Number.isNaN(days) || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 || ms < 0)
      return false;
    // Milliseconds since 2000 are exact in a double; times a thousand they may not be (years past
    // 2255), so the int8 is made from the two halves of the milliseconds.
    const total = days * 86_400_000 + h * 3_600_000 + mi * 60_000 + sec * 1000 + ms - EPOCH_MS;
    const hi = Math.floor(total / WORD);
    const lo = (total - hi * WORD) * 1000;
    const carry = Math.floor(lo / WORD);
    this.room(12);
    put32(this.buf, 8, this.at);
    put32(this.buf, hi * 1000 + carry, this.at + 4);
    put32(this.buf, lo - carry * WORD, this.at + 8);
    this.at += 12;
    return true;
  }

  /** Makes room for `n` more bytes in the current chunk. */
  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
}
