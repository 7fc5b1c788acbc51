// Reads a table (or the user's query) a page at a time in primary-key order ("keyset
// pagination"): each query asks for the rows after the last key sent, so memory holds one page
// whatever the table's size, and a later page costs the same as the first (no OFFSET). In a full
// sync of a table whose every column has a JSON form, the database writes each page's items as
// one JSON text, which core splices into the answer untouched (`jsonItems()`); otherwise rows
// are read as arrays and turned into items here.
import { type JsonItemsMarker, type JsonValue, type Marker, jsonItems, remove, resume } from '@weft/core';
import type { Queryable } from './database.js';
import { MAX_EXACT, identityReader } from './column-fields.js';
import { ident } from './sql.js';
import type { TableModel } from './table-model.js';

export interface ReadOptions {
  /** `"schema"."table" AS <alias>`, or the user's query as a subquery `AS <alias>`. */
  from: string;
  /** The alias of `from`: every column is referred to through it, so no name is ambiguous. */
  alias: string;
  /** Rows per query; a page of the service is exactly one query. */
  batch: number;
  /** Delta sync: changes since this instant, with removals. Null: a full sync. */
  since: Date | null;
  /** Where the previous page stopped (a `resume()` state of this reader), or undefined. */
  cursor: JsonValue | undefined;
  /** Runs each query: the database, or a read-only transaction for the user's query. */
  run: <T>(fn: (q: Queryable) => Promise<T>) => Promise<T>;
  /**
   * Whether a full sync may have the database write pages as JSON (see `jsonPageQuery`); false
   * reads rows always (the user's query: its hasNext check would run the query a second time).
   */
  jsonPages: boolean;
}

/** Key types whose value, as the driver returns it, gives the key's exact text with String(). */
const DIRECT_KEY_TYPES = new Set(['int2', 'int4', 'int8', 'text', 'varchar']);

/** An item: `id` is always set (from the key) before it is yielded. */
type Item = { id: string | number } & Record<string, unknown>;

/** The resume state: the phase (rows, then removals from the deletions table) and the last key. */
interface Cursor {
  p: 'rows' | 'gone';
  k?: string[];
  g?: string;
}

export function readCursor(value: JsonValue | undefined): Cursor | null {
  if (value === undefined) return { p: 'rows' };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { p, k, g } = value as Record<string, unknown>;
  if (p !== 'rows' && p !== 'gone') return null;
  if (k !== undefined && !(Array.isArray(k) && k.every((x) => typeof x === 'string'))) return null;
  if (g !== undefined && typeof g !== 'string') return null;
  return value as unknown as Cursor;
}

/** Items (and in a delta sync `remove()` markers), with a `resume()` after each query's rows. */
export async function* readRows(
  model: TableModel,
  options: ReadOptions,
): AsyncGenerator<ReadonlyArray<Item | Marker | JsonItemsMarker> | Marker> {
  const cursor = readCursor(options.cursor);
  if (!cursor) throw new Error('unreadable cursor'); // checked by the caller first
  const delta = options.since && model.delta ? model.delta : null;
  const json = !delta && options.jsonPages && cursor.p === 'rows' ? jsonPageQuery(model, options) : null;
  // Where reading by rows starts: the cursor's key, or where JSON pages had to stop.
  let rowsAfter = cursor.k;
  if (json) {
    // Full sync: one query per page, its items as the database writes them.
    let after = cursor.k;
    for (;;) {
      const rows = await options.run((q) => q.queryArrays(after ? json.after : json.first, after ?? []));
      const row = rows[0]!;
      const [count, last, more, exact] = row as [number, string | null, boolean, boolean];
      if (!exact) {
        // A bigint key past 2^53 on this page: its id must go as text, which the rows path
        // writes (see identityReader); keys are in order, so the rest of the sync goes that way.
        rowsAfter = after;
        break;
      }
      // One marker per chunk; chunks before the last are full.
      const chunks: JsonItemsMarker[] = [];
      for (let i = 0; i * json.chunk < count; i++) {
        const text = row[JSON_TEXTS_AT + i] as string | null;
        if (text !== null) chunks.push(jsonItems(text, Math.min(json.chunk, count - i * json.chunk)));
      }
      if (chunks.length > 0) yield chunks;
      if (!more || last === null) return;
      after = [last];
      yield resume({ p: 'rows', k: after });
    }
  }
  const since = options.since?.toISOString();
  const ref = (column: string) => `${options.alias}.${ident(column)}`;
  const keyRefs = model.key.map((c) => ref(c.name));
  const keyTypes = model.key.map((c) => c.type.sql);
  const readable = model.fields.filter((f) => f.column !== null);
  const soft = model.delta?.softDelete;
  const softRef = soft ? ref(soft.column) : '';
  // Where each key column's text is in a row: an integer or text key read as itself is its own
  // text (String() of what the driver returns is exact); any other key is selected again as text.
  const extraKeys: string[] = [];
  const keyIndex = model.key.map((c, i) => {
    const own = readable.findIndex(
      (f) => f.column === c.name && f.reader.select('x') === 'x' && DIRECT_KEY_TYPES.has(c.type.name),
    );
    if (own >= 0) return own;
    extraKeys.push(`${keyRefs[i]}::text`);
    return readable.length + extraKeys.length - 1;
  });
  const selectList = [
    ...readable.map((f) => f.reader.select(ref(f.column!))),
    ...extraKeys,
    ...(delta && soft
      ? [soft.kind === 'bool' ? `coalesce(${softRef}, false)` : `${softRef} IS NOT NULL`]
      : []),
  ].join(', ');
  const softIndex = readable.length + extraKeys.length;
  const keyTexts = (row: unknown[]): string[] => keyIndex.map((i) => String(row[i]));
  // Two plain arrays rather than pairs: the loop below runs for every value of every row.
  const ids = readable.map((f) => f.id);
  const converters = readable.map((f) => f.reader.convert);
  const width = ids.length;
  const idIndex = readable.findIndex((f) => f.id === 'id');
  const compositeId = compositeIdOf(model);
  const titleFromId = model.syntheticTitle ? `${singular(model.table.name)} ` : null;

  if (cursor.p === 'rows') {
    let after = rowsAfter;
    for (;;) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (delta) {
        params.push(since);
        where.push(
          soft?.kind === 'timestamp'
            ? `(${ref(delta.updatedAt)} >= $1 OR ${softRef} >= $1)`
            : `${ref(delta.updatedAt)} >= $1`,
        );
      } else if (soft) {
        where.push(soft.kind === 'bool' ? `NOT coalesce(${softRef}, false)` : `${softRef} IS NULL`);
      }
      if (after) {
        const from = params.length + 1;
        params.push(...after);
        where.push(`(${keyRefs.join(', ')}) > (${keyTypes.map((t, i) => `$${from + i}::${t}`).join(', ')})`);
      }
      const sql = `SELECT ${selectList} FROM ${options.from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${keyRefs.join(', ')} LIMIT ${options.batch + 1}`;
      const rows = await options.run((q) => q.queryArrays(sql, params));
      const more = rows.length > options.batch;
      if (more) rows.pop();
      const out: Array<Item | Marker> = new Array(rows.length);
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r]!;
        const item = {} as Item;
        for (let i = 0; i < width; i++) {
          const value = row[i];
          item[ids[i]!] = value === null || value === undefined ? null : converters[i]!(value);
        }
        if (idIndex < 0) item.id = compositeId(keyTexts(row));
        if (titleFromId) {
          item.name = `${titleFromId}${idIndex < 0 ? keyTexts(row).join(' / ') : item.id}`;
        }
        out[r] = delta && soft && row[softIndex] === true ? remove(item.id as string | number) : item;
      }
      if (out.length > 0) yield out;
      if (!more) break;
      const last = rows[rows.length - 1]!;
      after = keyTexts(last);
      yield resume({ p: 'rows', k: after });
    }
    if (!delta?.deletions) return;
    yield resume({ p: 'gone' });
  }

  // Removals recorded in the deletions table since the last sync.
  if (!delta?.deletions) return;
  let afterGone = cursor.p === 'gone' ? cursor.g : undefined;
  // A single key's text becomes the id as the id field writes it (a number, or exact text past 2^53).
  const idOf = model.key.length === 1 ? model.fields.find((f) => f.id === 'id')?.reader.convert : undefined;
  for (;;) {
    const params: unknown[] = [model.table.name, since];
    if (afterGone !== undefined) params.push(afterGone);
    const sql = `SELECT DISTINCT row_id FROM ${delta.deletions} WHERE table_name = $1 AND deleted_at >= $2${afterGone === undefined ? '' : ' AND row_id > $3'} ORDER BY row_id LIMIT ${options.batch + 1}`;
    const rows = await options.run((q) => q.queryArrays(sql, params));
    const more = rows.length > options.batch;
    if (more) rows.pop();
    if (rows.length > 0) {
      yield rows.map((r) => {
        const id = String(r[0]);
        const converted = idOf?.(id);
        return remove(typeof converted === 'number' || typeof converted === 'string' ? converted : id);
      });
    }
    if (!more) break;
    afterGone = String(rows[rows.length - 1]![0]);
    yield resume({ p: 'gone', g: afterGone });
  }
}

/** The two statements of a table's JSON pages: the first page, and a page after a key ($1). */
interface JsonPageQuery {
  first: string;
  after: string;
  /** Rows per JSON text: the page comes as several texts of this many rows, in order. */
  chunk: number;
}

/**
 * Rows per JSON text. A page of 5,000 rows as one text is half a megabyte: a string that large
 * goes straight into the old generation of the JavaScript heap (V8 puts objects over 128 kB
 * there), and one such string per page made the garbage collector run a full collection every
 * few pages, which cost the app more CPU than the JSON saved. Texts of 500 rows (50 kB for rows
 * of 100 bytes) die young, in cheap collections; Postgres pays about 10% more to aggregate
 * them apart.
 */
export const JSON_CHUNK_ROWS = 500;

/** Where a JSON page statement's texts start: after the row count, last key, `more` and `exact`. */
const JSON_TEXTS_AT = 4;

/**
 * The statement that reads one page as `[count, last key as text, more, exact, ...items]` (the items
 * as JSON arrays of `chunk` rows each, null past the page's end), or null when the table cannot
 * be read so: it needs a single-column key read as the `id` field itself (an integer or text
 * key) and a JSON form for every column (see column-fields.ts). The items are `json_agg` of the
 * page's rows, whose column names are the field ids, in key order (`ORDER BY` inside the
 * aggregate, so the order is guaranteed, not left to the plan), each aggregate taking the rows
 * of its chunk by their row number in key order. `more`
 * looks for one row past the page's last key only when the page is full, so `hasNext` is exact,
 * as on the rows path: no empty page after a full last one. It is a scalar subquery with
 * `ORDER BY key LIMIT 1`, not `EXISTS`: Postgres plans an `EXISTS` for its first row and picks a
 * sequential scan (it guesses a third of the table matches), which reads the table from its
 * start on every page; ordered by the key, it is one probe of the key's index. `exact` is false
 * when a bigint key on the page is past ±(2^53 - 1): such an id must go as exact text, which
 * only the rows path writes, so the caller reads that page (and, keys being in order, the rest)
 * by rows.
 */
export function jsonPageQuery(
  model: TableModel,
  options: Pick<ReadOptions, 'from' | 'alias' | 'batch'>,
): JsonPageQuery | null {
  if (model.key.length !== 1) return null;
  const key = model.key[0]!;
  const ref = (column: string) => `${options.alias}.${ident(column)}`;
  const keyRef = ref(key.name);
  const idField = model.fields.find((f) => f.id === 'id');
  if (
    !idField ||
    idField.column !== key.name ||
    !DIRECT_KEY_TYPES.has(key.type.name) ||
    idField.reader.select('x') !== 'x'
  ) {
    return null;
  }
  const columns: string[] = [];
  for (const f of model.fields) {
    if (f === idField) {
      // The key itself, which orders the page too; a bigint past 2^53 sends the page by rows (`exact`).
      columns.push(`${keyRef} AS ${ident(f.id)}`);
    } else if (f.column !== null) {
      const form = f.reader.json?.(ref(f.column));
      if (form === undefined) return null;
      columns.push(`${form} AS ${ident(f.id)}`);
    } else if (f.id === 'name' && model.syntheticTitle) {
      columns.push(`${literal(`${singular(model.table.name)} `)} || ${keyRef}::text AS ${ident(f.id)}`);
    } else {
      return null;
    }
  }
  const soft = model.delta?.softDelete;
  const softRef = soft ? ref(soft.column) : '';
  const base = soft ? [soft.kind === 'bool' ? `NOT coalesce(${softRef}, false)` : `${softRef} IS NULL`] : [];
  const page = (where: string[]) =>
    `SELECT ${columns.join(', ')} FROM ${options.from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${keyRef} LIMIT ${options.batch}`;
  const moreWhere = [...base, `${keyRef} > weft_json.last`].join(' AND ');
  const chunk = Math.min(options.batch, JSON_CHUNK_ROWS);
  const texts = Array.from(
    { length: Math.ceil(options.batch / chunk) },
    (_, i) => `(json_agg(weft_rows.r ORDER BY weft_rows.k) FILTER (WHERE weft_rows.c = ${i}))::text`,
  );
  // Whether every id on the page is a JSON number that a double holds exactly (see identityReader).
  const exact =
    key.type.name === 'int8'
      ? `coalesce(min(weft_rows.k) >= ${-MAX_EXACT} AND max(weft_rows.k) <= ${MAX_EXACT}, true)`
      : 'true';
  const statement = (where: string[]) =>
    `SELECT weft_json.n, weft_json.last::text, CASE WHEN weft_json.n = ${options.batch} THEN coalesce((SELECT true FROM ${options.from} WHERE ${moreWhere} ORDER BY ${keyRef} LIMIT 1), false) ELSE false END, weft_json.exact, ${texts.map((_, i) => `weft_json.t${i}`).join(', ')} FROM (SELECT count(*)::int AS n, max(weft_rows.k) AS last, ${exact} AS exact, ${texts.map((t, i) => `${t} AS t${i}`).join(', ')} FROM (SELECT weft_page AS r, weft_page.id AS k, (row_number() OVER (ORDER BY weft_page.id) - 1) / ${chunk} AS c FROM (${page(where)}) AS weft_page) AS weft_rows) AS weft_json`;
  return {
    first: statement(base),
    after: statement([...base, `${keyRef} > $1::${key.type.sql}`]),
    chunk,
  };
}

/** A SQL string literal. */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The id of a row of a multi-column key: the key values (converted like their fields) as a JSON
 * array, e.g. `["M-001",6]`. The deletions table records such rows by the same text.
 */
function compositeIdOf(model: TableModel): (texts: unknown[]) => string {
  const readers = model.key.map((c) => {
    const reader = model.fields.find((f) => f.column === c.name)?.reader;
    return reader && identityReader(reader, c.type);
  });
  return (texts) => JSON.stringify(texts.map((text, i) => (readers[i] ? readers[i].convert(text) : text)));
}

/** `books` → `Book`, `order_items` → `Order item`, for titles made from the id. */
function singular(table: string): string {
  const word = table.endsWith('ies')
    ? `${table.slice(0, -3)}y`
    : table.endsWith('s')
      ? table.slice(0, -1)
      : table;
  // `order_items` → `Order item`: a title reads as words, not as an identifier.
  const words =
    word
      .split(/[_\s]+/)
      .filter(Boolean)
      .join(' ') || word;
  return words.charAt(0).toUpperCase() + words.slice(1);
}
