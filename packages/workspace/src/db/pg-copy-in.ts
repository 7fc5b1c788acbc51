import type pg from 'pg';

// COPY … FROM STDIN over a pg connection in one round trip. The usual client (pg-copy-streams)
// sends the COPY statement, waits for the server's CopyInResponse, then sends the data: two round
// trips. The protocol lets the data follow the statement at once: the server reads the CopyData
// and CopyDone messages from its input once COPY starts, and if the statement fails before or
// during the copy it answers ErrorResponse and ReadyForQuery, then ignores the copy messages
// still in its input (the frontend/backend protocol says so for exactly this case). So the whole
// exchange is written in one go and settles on ReadyForQuery, or on the error.

const COPY_DATA = 0x64; // 'd'
const COPY_DONE = 0x63; // 'c'

interface Connection {
  query(text: string): void;
  stream: { write(chunk: Buffer): boolean };
}

/** A query object for pg's Client#query: runs `sql` (a COPY … FROM STDIN) with `data` as its input. */
class CopyInQuery {
  readonly done: Promise<void>;
  private settle!: (error?: unknown) => void;

  constructor(
    private readonly sql: string,
    private readonly text: string,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
  }

  submit(connection: Connection): void {
    connection.query(this.sql);
    // One buffer: CopyData (type, length, the text as UTF-8), then CopyDone (type, length 4).
    const size = Buffer.byteLength(this.text);
    const out = Buffer.allocUnsafe(size + 10);
    out[0] = COPY_DATA;
    out.writeUInt32BE(size + 4, 1);
    out.write(this.text, 5);
    out[size + 5] = COPY_DONE;
    out.writeUInt32BE(4, size + 6);
    connection.stream.write(out);
  }

  /** pg replaces this when a query timeout is configured; nothing to do otherwise. */
  callback(): void {}

  handleCopyInResponse(): void {}

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    this.callback();
    this.settle();
  }

  handleError(error: unknown): void {
    this.callback();
    this.settle(error);
  }
}

/**
 * Runs `COPY <table> (<columns>) FROM STDIN` on `client` with `text` (COPY text format) as input;
 * with `commit`, `COMMIT` follows in the same simple query (run only if the COPY succeeds).
 */
export async function copyIn(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  text: string,
  commit = false,
): Promise<void> {
  const sql = `COPY ${table} (${columns.join(', ')}) FROM STDIN${commit ? '; COMMIT' : ''}`;
  const query = new CopyInQuery(sql, text);
  client.query(query as unknown as pg.Submittable);
  await query.done;
}
