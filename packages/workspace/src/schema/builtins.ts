import type { Queryable } from '../db/driver.js';
import { type Catalog, DOCUMENT_SECRET, DOCUMENT_TYPE, loadCatalog, USER_TYPE } from './catalog.js';
import { APP_TYPE, ensureApps, INSTALLED, SPACE_FIELDS, spaceTable } from './apps.js';
import { addMissingCreators, createField, createType, setFieldMeta, setTypeMeta } from './schema-store.js';
import { addMissingOptionFields } from './option-fields.js';

// Types the service itself owns: users, files, rich-text documents, spaces (apps.ts), and comments
// (made when the comments mixin is first installed). They are ordinary typed tables, so queries
// treat them alike.

export { RESERVED_NAMESPACES } from './reserved-namespaces.js';

export { USER_TYPE };
/**
 * The form of the built-in types ensureBuiltinTypes makes: raised with every change to them, so
 * that the prepared PGlite template is made again (db/pglite-template.ts).
 */
export const BUILTIN_TYPES_VERSION = '6';
export const FILE_TYPE = 'svc/file';
export const COMMENT_TYPE = 'comments/comment';
/** The comment a reply answers. */
export const COMMENT_PARENT = 'comments/parent';
export const AVATAR_MIXIN = 'avatar/avatar-mixin';
export const AVATARS = 'avatar/avatars';
/**
 * A file's size in bytes under the service's own name: its clients select
 * `fibery/content-length` (a Go CLI, a Python exporter, a TypeScript library) and its upload
 * answers it. `svc/size` holds the same number.
 */
export const CONTENT_LENGTH = 'svc/content-length';

const field = (name: string, type: string, meta: Record<string, unknown> = {}) => ({
  'svc/name': name,
  'svc/type': type,
  'svc/meta': meta,
});

// A user's e-mail is for admins only (as GET /api/users shows it): svc/user is a secured type and
// user/email a secured field, so the one permission rule hides it from other users everywhere.
const SECURED = { 'svc/secured?': true };
/**
 * The user type as the service has it: a domain type (clients that list a workspace's databases by
 * `domain?`, as the service's own n8n node does, offer it; its web extension leaves it out by name)
 * and a platform type.
 */
const USER_META = { 'svc/domain?': true, 'svc/platform?': true };

export async function ensureBuiltinTypes(tx: Queryable): Promise<void> {
  const catalog = await loadCatalog(tx);
  const users = catalog.findType(USER_TYPE);
  // Whether a type was made below: only then is the catalog loaded again for the fields after.
  const made =
    !users || !catalog.findType(FILE_TYPE) || !catalog.findType(DOCUMENT_TYPE) || !catalog.findType(APP_TYPE);
  if (!users) {
    await createType(tx, {
      name: USER_TYPE,
      builtin: true,
      meta: { ...USER_META, ...SECURED },
      fields: [
        field('user/name', 'svc/text', { 'ui/title?': true }),
        field('user/email', 'svc/email', SECURED),
      ],
    });
  } else {
    // A workspace made before e-mails were secured; a flag an admin set since is left as it is.
    const email = users.byName.get('user/email');
    if (!('svc/secured?' in users.meta)) await setTypeMeta(tx, users.id, SECURED);
    // A workspace made before users were a domain type: once (platform? marks it done), so a
    // domain flag an admin set since is left as it is.
    if (!('svc/platform?' in users.meta)) await setTypeMeta(tx, users.id, USER_META);
    if (email && !('svc/secured?' in email.meta))
      await setFieldMeta(tx, catalog, USER_TYPE, 'user/email', 'svc/secured?', true);
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
        field(CONTENT_LENGTH, 'svc/int'),
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
  if (!catalog.findType(APP_TYPE)) {
    await createType(tx, {
      name: APP_TYPE,
      builtin: true,
      fields: [
        field('svc/name', 'svc/text', { 'ui/title?': true }),
        ...SPACE_FIELDS.map(([name, type]) => field(name, type)),
      ],
    });
  }
  const current = made ? await loadCatalog(tx) : catalog;
  // The spaces of types made before spaces were kept.
  await ensureApps(
    tx,
    current,
    current.types.filter((t) => !t.builtin).map((t) => t.name),
  );
  await addServiceFields(tx, current);
  await addMissingOptionFields(tx, current);
  // The catalog as it was is enough: the types made above are built-in ones, which take none.
  await addMissingCreators(tx, catalog);
}

/**
 * Fields the service's own types have that clients select, made on a new workspace and added to
 * an older one at its next start: a user's rank and avatars (the rank and avatar mixins, which the
 * service installs on users), a comment's parent (the comment a reply answers).
 */
async function addServiceFields(tx: Queryable, current: Catalog): Promise<void> {
  let catalog = current;
  const users = catalog.type(USER_TYPE);
  const wanted: Array<[string, string, string, Record<string, unknown>]> = [
    [USER_TYPE, 'svc/rank', 'svc/rank', {}],
    [USER_TYPE, AVATARS, FILE_TYPE, { 'svc/collection?': true }],
  ];
  if (catalog.findType(COMMENT_TYPE)) wanted.push([COMMENT_TYPE, COMMENT_PARENT, COMMENT_TYPE, {}]);
  const lengthMissing = !catalog.type(FILE_TYPE).byName.has(CONTENT_LENGTH);
  if (lengthMissing) wanted.push([FILE_TYPE, CONTENT_LENGTH, 'svc/int', {}]);
  const looksMissing = !catalog.type(APP_TYPE).byName.has('svc/title');
  if (looksMissing) for (const [name, type] of SPACE_FIELDS) wanted.push([APP_TYPE, name, type, {}]);
  for (const [holder, name, type, meta] of wanted) {
    if (catalog.type(holder).byName.has(name)) continue;
    await createField(tx, catalog, { holderType: holder, name, type, meta });
    catalog = await loadCatalog(tx);
  }
  if (looksMissing) {
    // The spaces made before: titled by their names, installed.
    const { type: spaces, col } = spaceTable(catalog);
    await tx.query(
      `UPDATE ${spaces.table} SET ${col('svc/title')} = ${col('svc/name')}, ${col('svc/status')} = $1`,
      [INSTALLED],
    );
  }
  if (lengthMissing) {
    // The files stored before it: their size, as svc/size has it.
    const files = catalog.type(FILE_TYPE);
    const col = (n: string) => (files.byName.get(n)!.storage as { col: string }).col;
    await tx.query(`UPDATE ${files.table} SET ${col(CONTENT_LENGTH)} = ${col('svc/size')}`);
  }
  const mixins = (users.meta['app/mixins'] as Record<string, boolean> | undefined) ?? {};
  if (!mixins['svc/rank-mixin'] || !mixins[AVATAR_MIXIN])
    await setTypeMeta(tx, users.id, {
      'app/mixins': { ...mixins, 'svc/rank-mixin': true, [AVATAR_MIXIN]: true },
    });
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
  await createField(tx, await loadCatalog(tx), {
    holderType: COMMENT_TYPE,
    name: COMMENT_PARENT,
    type: COMMENT_TYPE,
    meta: {},
  });
}
