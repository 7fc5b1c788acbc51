import { canAccessField, type Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import { forbidden } from '../errors.js';
import { COMMENT_TYPE } from '../schema/builtins.js';
import { type Catalog, DOCUMENT_SECRET, DOCUMENT_TYPE, loadCatalog } from '../schema/catalog.js';

// A rich-text document inherits access from the entity that holds it: a user who may not see the
// rich-text field (a secured field of a secured type, for a non-admin) may not read or write its
// document either, even knowing the secret. Comments the same way: a comment hanging on an entity
// through a `comments/comments` field closed to the user is closed too (its entity, its content
// and its document), even when the user knows its id or secret.

const COMMENTS_FIELD = 'comments/comments';
const COMMENT_SECRET = 'comment/document-secret';

/** SQL conditions, one per closed rich-text field, true when document `d` is held by that field. */
export function closedDocumentHolders(catalog: Catalog, user: Principal, d: string): string[] {
  if (user.admin) return [];
  const out: string[] = [];
  for (const type of catalog.types) {
    for (const f of type.fields) {
      if (f.storage.kind !== 'column' || canAccessField(user, type, f) || !catalog.isRichText(f)) continue;
      out.push(`EXISTS (SELECT 1 FROM ${type.table} o WHERE o.${f.storage.col} = ${d}.id)`);
    }
  }
  return out;
}

/** SQL conditions, one per closed `comments/comments` field, true when comment `c` hangs on it. */
export function closedCommentHolders(catalog: Catalog, user: Principal, c: string): string[] {
  if (user.admin) return [];
  const comments = catalog.findType(COMMENT_TYPE);
  if (!comments) return [];
  const out: string[] = [];
  for (const type of catalog.types) {
    const f = type.byName.get(COMMENTS_FIELD);
    if (f?.storage.kind !== 'join' || f.targetTypeId !== comments.id || canAccessField(user, type, f))
      continue;
    out.push(`EXISTS (SELECT 1 FROM ${f.storage.table} j WHERE j.${f.storage.other} = ${c}.id)`);
  }
  return out;
}

/** Refuses (403) when any of `secrets` names a document or comment held by a field closed to `user`. */
export async function assertDocumentAccess(
  q: Queryable,
  user: Principal,
  secrets: readonly string[],
): Promise<void> {
  if (user.admin || secrets.length === 0) return;
  const catalog = await loadCatalog(q);
  const checks: Array<[table: string, secretCol: string, holders: string[]]> = [];
  const doc = catalog.findType(DOCUMENT_TYPE);
  const docSecret = doc?.byName.get(DOCUMENT_SECRET);
  if (doc && docSecret?.storage.kind === 'column')
    checks.push([doc.table, docSecret.storage.col, closedDocumentHolders(catalog, user, 'd')]);
  const comment = catalog.findType(COMMENT_TYPE);
  const commentSecret = comment?.byName.get(COMMENT_SECRET);
  if (comment && commentSecret?.storage.kind === 'column')
    checks.push([comment.table, commentSecret.storage.col, closedCommentHolders(catalog, user, 'd')]);
  for (const [table, col, holders] of checks) {
    if (holders.length === 0) continue;
    const { rows } = await q.query(
      `SELECT 1 FROM ${table} d WHERE d.${col} = ANY($1::uuid[]) AND (${holders.join(' OR ')}) LIMIT 1`,
      [secrets],
    );
    if (rows.length > 0) throw forbidden('No permission for this document');
  }
}
