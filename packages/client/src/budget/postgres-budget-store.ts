// A rate budget kept in Postgres, so several processes (or machines) that use one token share
// it. Each reservation is one short transaction that locks the key's row; time comes from the
// database's clock, so processes with skewed clocks still agree.
import pg from 'pg';
import {
  type BudgetStore,
  completeSlot,
  nextSlot,
  type RateLimit,
  type Reservation,
  type WindowState,
} from './budget-store.js';

export interface PostgresBudgetStoreOptions {
  /** A pool to use (the store does not end it), or a connection string (the store owns it). */
  pool?: pg.Pool;
  connectionString?: string;
  /** Table holding the windows (optionally `schema.table`); created when missing. Default `weft_client_rate_budget`. */
  table?: string;
}

export class PostgresBudgetStore implements BudgetStore {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #table: string;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresBudgetStoreOptions) {
    if (options.pool) {
      this.#pool = options.pool;
      this.#ownsPool = false;
    } else if (options.connectionString) {
      this.#pool = new pg.Pool({ connectionString: options.connectionString, max: 4 });
      this.#ownsPool = true;
    } else {
      throw new Error('PostgresBudgetStore needs a pool or a connectionString');
    }
    const table = options.table ?? 'weft_client_rate_budget';
    if (!/^([a-z_][a-z0-9_]*\.)?[a-z_][a-z0-9_]*$/.test(table))
      throw new Error(`invalid table name ${JSON.stringify(table)}`);
    this.#table = table;
  }

  /** Creates the table when missing (done automatically before the first reservation). */
  ensureTable(): Promise<void> {
    this.#ready ??= this.#transaction(async (client) => {
      // Processes starting together would race in CREATE TABLE IF NOT EXISTS, which is not safe
      // under concurrency: the loser fails on the catalog row the winner is inserting (23505), the
      // relation (42P07) or its row type (42710). A lock on the table's name makes them take turns;
      // the later one then finds the table.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `weft_client_rate_budget:${this.#table}`,
      ]);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${this.#table} (
           key text PRIMARY KEY,
           slots double precision[] NOT NULL DEFAULT '{}',
           pending double precision[] NOT NULL DEFAULT '{}',
           blocked_until double precision NOT NULL DEFAULT 0
         )`,
      );
    }).catch((error: unknown) => {
      // A process that takes no lock (an older version) created it at the same moment.
      const code = (error as { code?: string }).code;
      if (code === '23505' || code === '42P07' || code === '42710') return;
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async reserve(key: string, limit: RateLimit): Promise<Reservation> {
    return this.#update(key, (state, now) => nextSlot(state, limit, now));
  }

  async complete(key: string, slot: number): Promise<void> {
    await this.#update(key, (state, now) => ({
      state: completeSlot(state, slot, now),
      reservation: undefined,
    }));
  }

  async block(key: string, delayMs: number): Promise<void> {
    await this.#update(key, (state, now) => ({
      state: { ...state, blockedUntil: Math.max(state.blockedUntil, now + delayMs) },
      reservation: undefined,
    }));
  }

  /** Reads the key's window under a row lock, applies `change` with the database's clock, writes it. */
  async #update<R>(
    key: string,
    change: (state: WindowState, now: number) => { state: WindowState; reservation: R },
  ) {
    await this.ensureTable();
    return this.#transaction(async (client) => {
      await client.query(`INSERT INTO ${this.#table} (key) VALUES ($1) ON CONFLICT (key) DO NOTHING`, [key]);
      const { rows } = await client.query<{
        slots: number[];
        pending: number[];
        blocked_until: number;
        now: number;
      }>(
        `SELECT slots, pending, blocked_until, extract(epoch FROM clock_timestamp()) * 1000 AS now
           FROM ${this.#table} WHERE key = $1 FOR UPDATE`,
        [key],
      );
      const row = rows[0]!;
      const state: WindowState = {
        slots: row.slots.map(Number),
        pending: row.pending.map(Number),
        blockedUntil: Number(row.blocked_until),
      };
      const next = change(state, Number(row.now));
      await client.query(
        `UPDATE ${this.#table} SET slots = $2, pending = $3, blocked_until = $4 WHERE key = $1`,
        [key, next.state.slots, next.state.pending, next.state.blockedUntil],
      );
      return next.reservation;
    });
  }

  /** Ends the pool when the store created it. */
  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }

  async #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
