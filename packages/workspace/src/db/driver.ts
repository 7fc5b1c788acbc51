// One small interface over the two engines: PGlite in process, or a Postgres server through `pg`.
// Everything above this layer speaks plain parameterised SQL ($1, $2, ...) and never knows which.

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface CopyOptions {
  /**
   * The COPY is the transaction's last statement: COMMIT travels with it (no round trip of its
   * own) and the transaction is over once the COPY resolves; nothing may run on it afterwards.
   * If the COPY fails, nothing is committed and the transaction rolls back as usual.
   */
  commit?: boolean;
  /** `data` is in COPY's binary format (see copy-binary.ts), not its text format. */
  binary?: boolean;
}

/** COPY data: text (one string, or slices of whole rows), or binary chunks (see CopyOptions.binary). */
export type CopyData = string | Iterable<string> | Iterable<Uint8Array>;

export interface Queryable {
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
  /**
   * Loads rows into `table (columns)` with COPY FROM, `data` in COPY's text format (tab between
   * values, a newline after each row, \N for null; see copy-text.ts), whole or as slices of whole
   * rows, or with `binary` in its binary format (copy-binary.ts), in chunks. The cheapest way
   * for the server to take many rows; absent where the engine cannot.
   * The data is sent during the call when the transaction is already under way: slices are made
   * and sent one after the other, so the server works on the first while the next is made, and
   * the caller may work while the returned promise is pending.
   */
  copyIn?(table: string, columns: readonly string[], data: CopyData, options?: CopyOptions): Promise<void>;
}

export interface Driver extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** the engine's own client (PGlite instance or pg Pool), for engine-specific work */
  readonly raw?: unknown;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs several statements separated by semicolons (no parameters). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** A database error carries Postgres' SQLSTATE in `code` on both engines. */
export function sqlState(error: unknown): string | undefined {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') {
    return error.code.length === 5 ? error.code : undefined;
  }
  return undefined;
}
