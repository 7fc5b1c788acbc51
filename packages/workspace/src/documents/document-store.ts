import type { Queryable } from '../db/driver.js';
import { badRequest, notFound } from '../errors.js';
import { COMMENT_TYPE } from '../schema/builtins.js';
import { DOCUMENT_SECRET, DOCUMENT_TYPE, loadCatalog } from '../schema/catalog.js';
import { isUuid } from '../schema/values.js';
import { type Converters, converters } from './converters.js';
import type { JsonDocument } from './document-json.js';

// Rich-text documents keyed by their secret. A document is stored in the format it was written in
// (Markdown or HTML; json is stored as Markdown) and converted on read (Markdown ⇄ HTML, Markdown
// → json: document-json.ts); `md` is the format when none is named.

export type DocumentFormat = 'md' | 'html' | 'json';
export type StoredFormat = 'md' | 'html';
export const FORMATS: readonly DocumentFormat[] = ['md', 'html', 'json'];

export function parseFormat(value: unknown): DocumentFormat {
  if (value === undefined || value === '') return 'md';
  if (value === 'markdown') return 'md';
  if (typeof value === 'string' && (FORMATS as readonly string[]).includes(value))
    return value as DocumentFormat;
  throw badRequest(`format must be one of ${FORMATS.join(', ')}`);
}

function convert(c: Converters, content: string, from: StoredFormat, to: StoredFormat): string {
  if (from === to) return content;
  return from === 'md' ? c.mdToHtml(content) : c.htmlToMd(content);
}

/** Stored text in the format asked for: a string, or for json the document object. */
function present(
  c: Converters,
  content: string,
  from: StoredFormat,
  to: DocumentFormat,
): string | JsonDocument {
  return to === 'json' ? c.markdownToJson(convert(c, content, from, 'md')) : convert(c, content, from, to);
}

function checkSecret(secret: unknown): string {
  if (!isUuid(secret)) throw badRequest('A document secret is a uuid');
  return secret;
}

/** Secrets that name a document even before any content was written to it. */
async function knownSecret(q: Queryable, secret: string): Promise<boolean> {
  const catalog = await loadCatalog(q);
  for (const [typeName, fieldName] of [
    [DOCUMENT_TYPE, DOCUMENT_SECRET],
    [COMMENT_TYPE, 'comment/document-secret'],
  ] as const) {
    const type = catalog.findType(typeName);
    const field = type?.byName.get(fieldName);
    if (!type || !field || field.storage.kind !== 'column') continue;
    const { rows } = await q.query(`SELECT 1 FROM ${type.table} WHERE ${field.storage.col} = $1 LIMIT 1`, [
      secret,
    ]);
    if (rows.length > 0) return true;
  }
  return false;
}

type ReadDocument = { secret: string; content: string | null };
export async function readDocument(
  q: Queryable,
  secretIn: unknown,
  format: StoredFormat,
  missing?: 'error' | 'null',
): Promise<ReadDocument>;
export async function readDocument(
  q: Queryable,
  secretIn: unknown,
  format: DocumentFormat,
  missing?: 'error' | 'null',
): Promise<{ secret: string; content: string | JsonDocument | null }>;
export async function readDocument(
  q: Queryable,
  secretIn: unknown,
  format: DocumentFormat,
  missing: 'error' | 'null' = 'error',
): Promise<{ secret: string; content: string | JsonDocument | null }> {
  const secret = checkSecret(secretIn);
  const { rows } = await q.query<{ format: StoredFormat; content: string }>(
    `SELECT format, content FROM svc_documents WHERE secret = $1`,
    [secret],
  );
  const row = rows[0];
  if (row) return { secret, content: present(await converters(), row.content, row.format, format) };
  if (await knownSecret(q, secret)) return { secret, content: present(await converters(), '', 'md', format) };
  if (missing === 'null') return { secret, content: null };
  throw notFound(`No document ${secret}`);
}

export async function writeDocument(
  q: Queryable,
  secretIn: unknown,
  content: unknown,
  format: DocumentFormat,
) {
  await writeDocuments(q, [{ secret: secretIn, content, format }]);
}

/** One document's new content, as a caller gives it (checked by writeDocuments). */
export interface DocumentWrite {
  secret: unknown;
  content: unknown;
  format: DocumentFormat;
}

/**
 * Writes many documents in a fixed number of statements (a sync writes a page's rich text at
 * once; a statement per document cost more than the page's rows). Every write is checked before
 * any is stored; a secret written twice keeps its last content, as writing them in turn would.
 */
export async function writeDocuments(q: Queryable, writes: readonly DocumentWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const c = await converters();
  const last = new Map<string, { stored: StoredFormat; text: string }>();
  for (const w of writes) {
    // as the database prints a uuid, so that the comments' secrets read back find their write
    const secret = checkSecret(w.secret).toLowerCase();
    const { text, stored } = storable(c, w.content, w.format);
    last.set(secret, { stored, text: text.replaceAll('\0', '') });
  }
  const secrets = [...last.keys()];
  const docs = [...last.values()];
  await q.query(
    `INSERT INTO svc_documents (secret, format, content)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[])
     ON CONFLICT (secret) DO UPDATE SET format = excluded.format, content = excluded.content, updated_at = now()`,
    [secrets, docs.map((d) => d.stored), docs.map((d) => d.text)],
  );
  // A comment shows its text in comment/content once its document is written.
  const catalog = await loadCatalog(q);
  const comment = catalog.findType(COMMENT_TYPE);
  const key = comment?.byName.get('comment/document-secret');
  const text = comment?.byName.get('comment/content');
  if (!comment || key?.storage.kind !== 'column' || text?.storage.kind !== 'column') return;
  const { rows } = await q.query<{ s: string }>(
    `SELECT ${key.storage.col}::text AS s FROM ${comment.table} WHERE ${key.storage.col} = ANY($1::uuid[])`,
    [secrets],
  );
  if (rows.length === 0) return;
  const of = [...new Set(rows.map((r) => r.s))];
  await q.query(
    `UPDATE ${comment.table} SET ${text.storage.col} = x.t, modified = clock_timestamp()
     FROM unnest($1::uuid[], $2::text[]) AS x(s, t) WHERE ${key.storage.col} = x.s`,
    [of, of.map((s) => convert(c, last.get(s)!.text, last.get(s)!.stored, 'md'))],
  );
}

/** What is stored of `content` written in `format`: its text and the format that text is in. */
function storable(
  c: Converters,
  content: unknown,
  format: DocumentFormat,
): { text: string; stored: StoredFormat } {
  if (format === 'json') return { text: c.jsonToMarkdown(content), stored: 'md' };
  if (typeof content !== 'string') throw badRequest('content must be a string');
  return { text: content, stored: format };
}

/**
 * Adds `content` (in `format`) at the end of the document, after a blank line in Markdown: what
 * create-or-append-documents and a script's appendDocumentContent do.
 */
export async function appendDocument(
  q: Queryable,
  secretIn: unknown,
  content: unknown,
  format: DocumentFormat,
) {
  const { text: added, stored } = storable(await converters(), content, format);
  const before = (await readDocument(q, secretIn, stored, 'null')).content;
  const joiner = !before ? '' : stored === 'md' ? '\n\n' : '';
  await writeDocument(q, secretIn, (before ?? '') + joiner + added, stored);
}
