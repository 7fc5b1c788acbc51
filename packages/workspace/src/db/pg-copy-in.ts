import type pg from 'pg';
import type { CopyData } from './driver.js';

// COPY … FROM STDIN over a pg connection in one round trip. The usual client (pg-copy-streams)
// sends the COPY statement, waits for the server's CopyInResponse, then sends the data: two round
// trips. The protocol lets the data follow the statement at once: the server reads the CopyData
// and CopyDone messages from its input once COPY starts, and if the statement fails before or
// during the copy it answers ErrorResponse and ReadyForQuery, then ignores the copy messages
// still in its input (the frontend/backend protocol says so for exactly this case). So the whole
// exchange is written in one go and settles on ReadyForQuery, or on the error.

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'
const COPY_FAIL = 0x66; // 'f'

interface Connection {
  query(text: string): void;
  stream: { write(chunk: Buffer): boolean };
}

/** One CopyData message (type, length, the data: text as UTF-8, or binary as it is). */
function copyData(data: string | Uint8Array): Buffer {
  const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  const out = Buffer.allocUnsafe(size + 5);
  out[0] = COPY_DATA;
  out.writeUInt32BE(size + 4, 1);
  if (typeof data === 'string') out.write(data, 5);
  else out.set(data, 5);
  return out;
}

/** A message of a type and a body (CopyDone: none; CopyFail: the reason, NUL-terminated). */
function message(type: number, body = ''): Buffer {
  const size = body === '' ? 0 : Buffer.byteLength(body) + 1;
  const out = Buffer.alloc(size + 5);
  out[0] = type;
  out.writeUInt32BE(size + 4, 1);
  if (size > 0) out.write(body, 5);
  return out;
}

/** A query object for pg's Client#query: runs `sql` (a COPY … FROM STDIN) with `data` as its input. */
class CopyInQuery {
  readonly done: Promise<void>;
  private settle!: (error?: unknown) => void;
  /** thrown while making the data: the COPY was abandoned (CopyFail) and fails with this */
  private failure: unknown;

  constructor(
    private readonly sql: string,
    private readonly data: CopyData,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
  }

  submit(connection: Connection): void {
    connection.query(this.sql);
    if (typeof this.data === 'string') {
      connection.stream.write(Buffer.concat([copyData(this.data), message(COPY_DONE)]));
      return;
    }
    // Each slice goes out as soon as it is made: the server reads it while the next is made.
    try {
      for (const slice of this.data) if (slice.length > 0) connection.stream.write(copyData(slice));
    } catch (error) {
      this.failure = error;
      connection.stream.write(message(COPY_FAIL, 'the rows could not be made'));
      return;
    }
    connection.stream.write(message(COPY_DONE));
  }

  /** pg replaces this when a query timeout is configured; nothing to do otherwise. */
  callback(): void {}

  handleCopyInResponse(): void {}

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    this.callback();
    this.settle(this.failure);
  }

  handleError(error: unknown): void {
    this.callback();
    this.settle(this.failure ?? error);
  }
}

/**
 * Runs `COPY <table> (<columns>) FROM STDIN` on `client` with `data` (COPY text format, whole or
 * in slices of whole rows; with `binary`, chunks of the binary format) as input; with `commit`,
 * `COMMIT` follows in the same simple query (run only if the COPY succeeds). The data is written
 * during the call when the client is idle, as a transaction's client is between its statements.
 * If making a slice throws, the COPY is abandoned (CopyFail) and the promise rejects with what
 * was thrown.
 */
export async function copyIn(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  data: CopyData,
  commit = false,
  binary = false,
): Promise<void> {
  const sql = `COPY ${table} (${columns.join(', ')}) FROM STDIN${binary ? ' WITH (FORMAT binary)' : ''}${commit ? '; COMMIT' : ''}`;
  const query = new CopyInQuery(sql, data);
  client.query(query as unknown as pg.Submittable);
  await query.done;
}
