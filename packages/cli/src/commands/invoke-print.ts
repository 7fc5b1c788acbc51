// How `weft invoke` shows what it did: each exchange as it happens (request with the account's
// secrets redacted, status, timing), then the answer: rows as a table, anything else as JSON.
import { clip } from '@weft/core/redact';
import { type ExchangeSummary, exchangeLine } from '@weft/sync-engine';
import Table from 'cli-table3';

type Json = Record<string, unknown>;

/** Characters of a cell shown; the table is for reading, `--json` has every value whole. */
const MAX_CELL = 40;
/** Columns shown; the rest are named under the table. */
const MAX_COLUMNS = 8;

const cell = (value: unknown): string =>
  value === undefined || value === null
    ? ''
    : clip(typeof value === 'string' ? value : JSON.stringify(value), MAX_CELL).replace(/\s+/g, ' ');

/** Rows as a table with a column per key (in the order keys first appear). */
export function table(rows: Json[]): string {
  if (rows.length === 0) return '(no rows)\n';
  const keys: string[] = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!keys.includes(key)) keys.push(key);
  const shown = keys.slice(0, MAX_COLUMNS);
  const out = new Table({ head: shown, style: { head: [], border: [] } });
  for (const row of rows) out.push(shown.map((k) => cell(row[k])));
  const hidden = keys.slice(MAX_COLUMNS);
  return `${out.toString()}\n${hidden.length > 0 ? `(also: ${hidden.join(', ')}; --json shows every field)\n` : ''}`;
}

/** An exchange as printed: its line, the request that was sent, an error's answer. */
export function exchangeText(summary: ExchangeSummary, detail?: string): string {
  return `→ ${exchangeLine(summary, detail)}\n`;
}

export function pretty(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
