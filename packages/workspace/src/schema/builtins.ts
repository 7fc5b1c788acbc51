import type { Queryable } from '../db/driver.js';
import { DOCUMENT_SECRET, DOCUMENT_TYPE, loadCatalog } from './catalog.js';
import { createType } from './schema-store.js';

// Types the service itself owns: users, files, rich-text documents, and comments (made when the
// comments mixin is first installed). They are ordinary typed tables, so queries treat them alike.

export const USER_TYPE = 'svc/user';
export const FILE_TYPE = 'svc/file';
export const COMMENT_TYPE = 'comments/comment';

const field = (name: string, type: string, meta: Record<string, unknown> = {}) => ({
  'svc/name': name,
  'svc/type': type,
  'svc/meta': meta,
});

export async function ensureBuiltinTypes(tx: Queryable): Promise<void> {
  const catalog = await loadCatalog(tx);
  if (!catalog.findType(USER_TYPE)) {
    await createType(tx, {
      name: USER_TYPE,
      builtin: true,
      meta: { 'svc/domain?': false },
      fields: [field('user/name', 'svc/text', { 'ui/title?': true }), field('user/email', 'svc/email')],
    });
  }
  if (!catalog.findType(FILE_TYPE)) {
    await createType(tx, {
      name: FILE_TYPE,
      builtin: true,
      fields: [
        field('svc/name', 'svc/text', { 'ui/title?': true }),
        field('svc/content-type', 'svc/text'),
        field('svc/secret', 'svc/uuid'),
        field('svc/size', 'svc/int'),
      ],
    });
  }
  if (!catalog.findType(DOCUMENT_TYPE)) {
    await createType(tx, {
      name: DOCUMENT_TYPE,
      builtin: true,
      fields: [field(DOCUMENT_SECRET, 'svc/uuid')],
    });
  }
}

export async function ensureCommentType(tx: Queryable): Promise<void> {
  const catalog = await loadCatalog(tx);
  if (catalog.findType(COMMENT_TYPE)) return;
  await createType(tx, {
    name: COMMENT_TYPE,
    builtin: true,
    fields: [
      field('comment/document-secret', 'svc/uuid'),
      field('comment/content', 'svc/text'),
      field('comment/author', USER_TYPE),
    ],
  });
}
