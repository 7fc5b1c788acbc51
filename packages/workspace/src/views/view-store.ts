import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import { isUuid } from '../schema/values.js';

// Views as records: svc/id, svc/public-id, svc/name, svc/type, svc/meta, svc/container-app.
// A view belongs to the user who created it: that user (and an admin) reads, changes and deletes
// it; to anyone else it does not exist (not found, as an unknown id).

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
export const INVALID_PARAMS = -32602;
export const NOT_FOUND = -32004;
export const CONFLICT = -32009;

export interface ViewRecord {
  'svc/id': string;
  'svc/public-id': string;
  'svc/name': string;
  'svc/type': string;
  'svc/meta': Record<string, unknown>;
  'svc/container-app': { 'svc/id': string } | null;
}

const SELECT = `SELECT id, public_id::text AS public_id, name, type, meta, container_app FROM svc_views`;
interface Row {
  id: string;
  public_id: string;
  name: string;
  type: string;
  meta: Record<string, unknown>;
  container_app: { 'svc/id': string } | null;
}
const toView = (r: Row): ViewRecord => ({
  'svc/id': r.id,
  'svc/public-id': r.public_id,
  'svc/name': r.name,
  'svc/type': r.type,
  'svc/meta': r.meta,
  'svc/container-app': r.container_app,
});
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown, what: string): string[] | undefined => {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
    throw new RpcError(INVALID_PARAMS, `${what} must be an array of strings`);
  return v;
};

/** `filter.container` as the service takes it: `{type: "entity", typeId: <uuid>, publicIds: [...]}`. */
function checkContainer(container: unknown): void {
  const ok =
    isObject(container) &&
    container.type === 'entity' &&
    isUuid(container.typeId) &&
    Array.isArray(container.publicIds) &&
    container.publicIds.every((p) => typeof p === 'string');
  if (!ok)
    throw new RpcError(
      INVALID_PARAMS,
      'filter.container must be {type: "entity", typeId: <uuid>, publicIds: [<public id>, ...]}',
    );
}

/** SQL condition: the view is `user`'s to see and change (parameters `$1` admin, `$2` user id). */
const MINE = `($1 OR created_by = $2::uuid)`;

export async function queryViews(
  q: Queryable,
  user: Principal,
  params: Record<string, unknown>,
): Promise<ViewRecord[]> {
  const filter = params.filter === undefined ? {} : params.filter;
  if (!isObject(filter)) throw new RpcError(INVALID_PARAMS, 'filter must be an object');
  const ids = strings(filter.ids, 'filter.ids')?.filter(isUuid);
  const publicIds = strings(filter.publicIds, 'filter.publicIds');
  const { isPrivate, container } = filter;
  if (isPrivate !== undefined && typeof isPrivate !== 'boolean')
    throw new RpcError(INVALID_PARAMS, 'filter.isPrivate must be true or false');
  if (container !== undefined) checkContainer(container);
  const conds: string[] = [MINE];
  const values: unknown[] = [user.admin, user.id];
  if (ids) conds.push(`id = ANY($${values.push(ids)}::uuid[])`);
  if (publicIds) conds.push(`public_id::text = ANY($${values.push(publicIds)}::text[])`);
  // "My space" is where a view made without a space (svc/container-app) is.
  if (isPrivate !== undefined) conds.push(`container_app IS ${isPrivate ? '' : 'NOT '}NULL`);
  // A view here is in a space or in My space: none is attached to an entity.
  if (container !== undefined) conds.push('FALSE');
  const { rows } = await q.query<Row>(`${SELECT} WHERE ${conds.join(' AND ')} ORDER BY public_id`, values);
  return rows.map(toView);
}

export async function createViews(
  q: Queryable,
  user: Principal,
  params: Record<string, unknown>,
): Promise<ViewRecord[]> {
  if (!Array.isArray(params.views))
    throw new RpcError(INVALID_PARAMS, 'views must be an array of View objects');
  const ids: string[] = [];
  for (const v of params.views) {
    if (!isObject(v)) throw new RpcError(INVALID_PARAMS, 'each view must be an object');
    const id = v['svc/id'] ?? randomUUID();
    if (!isUuid(id)) throw new RpcError(INVALID_PARAMS, 'svc/id must be a uuid');
    if (typeof v['svc/name'] !== 'string') throw new RpcError(INVALID_PARAMS, 'svc/name must be a string');
    const type = v['svc/type'] ?? 'board';
    if (typeof type !== 'string') throw new RpcError(INVALID_PARAMS, 'svc/type must be a string');
    const meta = v['svc/meta'] ?? {};
    if (!isObject(meta)) throw new RpcError(INVALID_PARAMS, 'svc/meta must be an object');
    const app = v['svc/container-app'] ?? null;
    if (app !== null && !(isObject(app) && isUuid(app['svc/id']))) {
      throw new RpcError(INVALID_PARAMS, 'svc/container-app must be {"svc/id": <uuid>}');
    }
    const { rowCount } = await q.query(
      `INSERT INTO svc_views (id, name, type, meta, container_app, created_by) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (id) DO NOTHING`,
      [
        id,
        v['svc/name'],
        type,
        JSON.stringify(meta),
        app === null ? null : JSON.stringify({ 'svc/id': app['svc/id'] }),
        user.id,
      ],
    );
    if (rowCount === 0) throw new RpcError(CONFLICT, `A view ${id} already exists`);
    ids.push(id);
  }
  return queryViews(q, user, { filter: { ids } });
}

export async function updateViews(
  q: Queryable,
  user: Principal,
  params: Record<string, unknown>,
): Promise<ViewRecord[]> {
  if (!Array.isArray(params.updates))
    throw new RpcError(INVALID_PARAMS, 'updates must be an array of {id, values}');
  const ids: string[] = [];
  for (const u of params.updates) {
    if (!isObject(u) || !isUuid(u.id) || !isObject(u.values)) {
      throw new RpcError(INVALID_PARAMS, 'each update is {id: <uuid>, values: {svc/name?, svc/meta?}}');
    }
    const name = u.values['svc/name'];
    const meta = u.values['svc/meta'];
    if (name !== undefined && typeof name !== 'string')
      throw new RpcError(INVALID_PARAMS, 'svc/name must be a string');
    if (meta !== undefined && !isObject(meta))
      throw new RpcError(INVALID_PARAMS, 'svc/meta must be an object');
    const { rowCount } = await q.query(
      `UPDATE svc_views SET name = COALESCE($4, name), meta = COALESCE($5::jsonb, meta) WHERE id = $3 AND ${MINE}`,
      [user.admin, user.id, u.id, name ?? null, meta === undefined ? null : JSON.stringify(meta)],
    );
    if (rowCount === 0) throw new RpcError(NOT_FOUND, `No view ${u.id}`);
    ids.push(u.id);
  }
  return queryViews(q, user, { filter: { ids } });
}

export async function deleteViews(
  q: Queryable,
  user: Principal,
  params: Record<string, unknown>,
): Promise<{ deleted: string[] }> {
  const ids = strings(params.ids, 'ids');
  if (!ids?.every(isUuid)) throw new RpcError(INVALID_PARAMS, 'ids must be an array of uuids');
  const { rows } = await q.query<{ id: string }>(
    `DELETE FROM svc_views WHERE id = ANY($3::uuid[]) AND ${MINE} RETURNING id`,
    [user.admin, user.id, ids],
  );
  return { deleted: rows.map((r) => r.id) };
}
