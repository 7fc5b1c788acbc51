import { readDocument } from '../documents/document-store.js';
import { badRequest } from '../errors.js';
import { TEXT_TYPES } from '../schema/values.js';
import {
  type Catalog,
  DOCUMENT_SECRET,
  DOCUMENT_TYPE,
  type FieldDef,
  type TypeDef,
  titleField,
} from '../schema/catalog.js';
import type { Workspace } from '../workspace.js';
import type { Principal } from '../auth/principal.js';

// Every read the page makes goes through svc.entity/query, the data API's own query path: paging,
// sorting and filtering are compiled to SQL there; the page never loads a whole type.

export const PAGE_SIZE = 25;
type Row = Record<string, unknown>;

export { titleField };

export const isRichText = (catalog: Catalog, f: FieldDef): boolean =>
  f.kind === 'one' && f.targetTypeId !== null && catalog.target(f).name === DOCUMENT_TYPE;

/** A collection of options, as the service marks one: sorted and filtered by no column. */
export const isMultiSelect = (f: FieldDef): boolean =>
  f.kind === 'many' && f.meta['svc/type-component?'] === true;

const DETAIL_ONLY = new Set(['svc/id', 'svc/creation-date', 'svc/modification-date', 'svc/created-by']);

/**
 * Fields shown as table columns: the public id and title first, then primitives, to-one relations
 * and multi-selects (not rich text, not other collections; ids, dates and the creator are on the
 * entity's own page). A field marked `ui/hidden?` (a relation's raw value, kept as the service
 * keeps it) is on the entity's page only.
 */
export function columns(catalog: Catalog, t: TypeDef): FieldDef[] {
  const title = titleField(t);
  const shown = t.fields.filter(
    (f) =>
      !DETAIL_ONLY.has(f.name) &&
      f.meta['ui/hidden?'] !== true &&
      (f.kind === 'primitive' || (f.kind === 'one' && !isRichText(catalog, f)) || isMultiSelect(f)),
  );
  const first = shown.filter((f) => f.name === 'svc/public-id' || f === title);
  return [...first, ...shown.filter((f) => !first.includes(f))];
}

function selectFor(catalog: Catalog, f: FieldDef): unknown {
  if (f.kind === 'primitive') return f.name;
  const target = catalog.target(f);
  if (isRichText(catalog, f)) return { [f.name]: [DOCUMENT_SECRET] };
  const title = titleField(target);
  const sub = ['svc/id', ...(title ? [title.name] : [])];
  return f.kind === 'one' ? { [f.name]: sub } : { [f.name]: { 'q/select': sub, 'q/limit': 'q/no-limit' } };
}

async function query(workspace: Workspace, user: Principal, query: unknown, params: Row): Promise<Row[]> {
  const [result] = await workspace.execute([{ command: 'svc.entity/query', args: { query, params } }], {
    user,
  });
  if (!result?.success) throw badRequest(result?.error.message ?? 'The query failed', 'invalid-query');
  return result.result as Row[];
}

/** The id of the entity of `t` with public id `publicId`, as `user` may see it. */
export async function entityIdByPublicId(
  workspace: Workspace,
  user: Principal,
  t: TypeDef,
  publicId: string,
): Promise<string | undefined> {
  const rows = await query(
    workspace,
    user,
    { 'q/from': t.name, 'q/select': ['svc/id'], 'q/where': ['=', ['svc/public-id'], '$p'], 'q/limit': 1 },
    { $p: publicId },
  );
  return rows[0]?.['svc/id'] as string | undefined;
}

export interface TableRequest {
  page: number;
  sort?: string | undefined;
  desc: boolean;
  filterField?: string | undefined;
  filterValue?: string | undefined;
}

/** One page of a type (PAGE_SIZE rows, plus one to know whether a next page exists). */
export async function loadTablePage(
  workspace: Workspace,
  user: Principal,
  catalog: Catalog,
  t: TypeDef,
  r: TableRequest,
): Promise<{ rows: Row[]; hasNext: boolean }> {
  const cols = columns(catalog, t);
  const q: Row = {
    'q/from': t.name,
    'q/select': ['svc/id', ...cols.map((f) => selectFor(catalog, f))],
    'q/limit': PAGE_SIZE + 1,
    'q/offset': r.page * PAGE_SIZE,
  };
  const order: unknown[] = [];
  if (r.sort) {
    const f = catalog.field(t, r.sort);
    const path = f.kind === 'one' ? [f.name, titleField(catalog.target(f))?.name ?? 'svc/id'] : [f.name];
    order.push([path, r.desc ? 'q/desc' : 'q/asc']);
  }
  order.push([['svc/creation-date'], 'q/asc'], [['svc/id'], 'q/asc']);
  q['q/order-by'] = order;
  const params: Row = {};
  if (r.filterField && r.filterValue !== undefined && r.filterValue !== '') {
    const f = catalog.field(t, r.filterField);
    const target = f.kind === 'one' ? titleField(catalog.target(f)) : undefined;
    const path = f.kind === 'one' ? [f.name, target?.name ?? 'svc/id'] : [f.name];
    const valueType = f.kind === 'one' ? (target?.fieldType ?? 'svc/uuid') : f.fieldType;
    if (TEXT_TYPES.has(valueType)) {
      q['q/where'] = ['q/contains', path, '$v'];
      params.$v = r.filterValue;
    } else {
      q['q/where'] = ['=', path, '$v'];
      params.$v = convertValue(valueType, r.filterValue);
    }
  }
  const rows = await query(workspace, user, q, params);
  return { rows: rows.slice(0, PAGE_SIZE), hasNext: rows.length > PAGE_SIZE };
}

function convertValue(type: string, v: string): unknown {
  if (type === 'svc/int' || type === 'svc/rank') {
    const n = Number(v);
    if (!Number.isInteger(n)) throw badRequest(`"${v}" is not a whole number`, 'invalid-query');
    return n;
  }
  if (type === 'svc/bool') return v === 'true' || v === 'yes' || v === '1';
  return v;
}

export interface EntityDetail {
  entity: Row;
  richText: Map<string, string | null>;
}

/** One entity with every field: relations with their targets' titles, rich text as Markdown. */
export async function loadEntity(
  workspace: Workspace,
  user: Principal,
  catalog: Catalog,
  t: TypeDef,
  id: string,
): Promise<EntityDetail | undefined> {
  const select = t.fields.filter((f) => f.name !== 'svc/id').map((f) => selectFor(catalog, f));
  const rows = await query(
    workspace,
    user,
    {
      'q/from': t.name,
      'q/select': ['svc/id', ...select],
      'q/where': ['=', ['svc/id'], '$id'],
      'q/limit': 1,
    },
    { $id: id },
  );
  const entity = rows[0];
  if (!entity) return undefined;
  const richText = new Map<string, string | null>();
  for (const f of t.fields) {
    if (!isRichText(catalog, f)) continue;
    const doc = entity[f.name] as Row | null;
    const secret = doc?.[DOCUMENT_SECRET];
    richText.set(
      f.name,
      typeof secret === 'string'
        ? (await readDocument(workspace.driver, secret, 'md', 'null')).content
        : null,
    );
  }
  return { entity, richText };
}
