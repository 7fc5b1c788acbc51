import type { Queryable } from '../db/driver.js';
import { COMMENT_TYPE } from '../schema/builtins.js';
import type { Catalog, TypeDef } from '../schema/catalog.js';
import { DOCUMENT_SECRET, DOCUMENT_TYPE } from '../schema/catalog.js';

// What an entity owns and must not outlive it: the document entities of its rich-text fields
// (with their content), and the comments hanging on it through comments/comments (comment
// entities and their content) unless another entity holds the same comment too.

const COMMENTS_FIELD = 'comments/comments';

/**
 * Deletes what the entities of `type` own: all of them, or those whose id is in `ids`. Runs before
 * the entities themselves are deleted (or their table dropped), inside the same transaction.
 */
export async function deleteOwnedContent(
  tx: Queryable,
  catalog: Catalog,
  type: TypeDef,
  ids?: readonly string[],
): Promise<void> {
  const only = (alias: string, param: string) => (ids ? ` AND ${alias}.id = ANY(${param}::uuid[])` : '');
  const params = ids ? [ids] : [];
  const doc = catalog.findType(DOCUMENT_TYPE);
  const docSecret = doc?.byName.get(DOCUMENT_SECRET);
  if (doc && docSecret?.storage.kind === 'column') {
    for (const f of type.fields) {
      if (!catalog.isRichText(f) || f.storage.kind !== 'column') continue;
      await tx.query(
        `WITH gone AS (DELETE FROM ${doc.table} d USING ${type.table} o
                       WHERE d.id = o.${f.storage.col}${only('o', '$1')}
                       RETURNING d.${docSecret.storage.col} AS secret)
         DELETE FROM svc_documents WHERE secret IN (SELECT secret FROM gone)`,
        params,
      );
    }
  }
  const comments = catalog.findType(COMMENT_TYPE);
  const commentSecret = comments?.byName.get('comment/document-secret');
  const link = type.byName.get(COMMENTS_FIELD);
  if (!comments || commentSecret?.storage.kind !== 'column' || link?.storage.kind !== 'join') return;
  if (link.targetTypeId !== comments.id) return;
  const s = link.storage;
  // Comments also held by an entity that stays are kept.
  const elsewhere = catalog.types
    .map((t) => t.byName.get(COMMENTS_FIELD))
    .filter((f) => f && f.id !== link.id && f.storage.kind === 'join' && f.targetTypeId === comments.id)
    .map((f) => {
      const js = f!.storage as { table: string; other: string };
      return `NOT EXISTS (SELECT 1 FROM ${js.table} x WHERE x.${js.other} = c.id)`;
    });
  if (ids)
    elsewhere.push(
      `NOT EXISTS (SELECT 1 FROM ${s.table} x WHERE x.${s.other} = c.id AND x.${s.self} <> ALL($1::uuid[]))`,
    );
  await tx.query(
    `WITH gone AS (DELETE FROM ${comments.table} c
                   WHERE c.id IN (SELECT j.${s.other} FROM ${s.table} j WHERE true${ids ? ` AND j.${s.self} = ANY($1::uuid[])` : ''})
                   ${elsewhere.map((e) => `AND ${e}`).join(' ')}
                   RETURNING c.${commentSecret.storage.col} AS secret)
     DELETE FROM svc_documents WHERE secret IN (SELECT secret FROM gone)`,
    params,
  );
}
