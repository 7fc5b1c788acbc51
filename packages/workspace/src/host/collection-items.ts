import type { Workspace } from '../workspace.js';

// The items of collection fields (many-to-many links, attached files) of some rows, read through
// the data API, so that a sync can make a collection hold exactly what the app sent: add what is
// missing, remove what is no longer sent.

type Json = Record<string, unknown>;
const CHUNK = 1000;

export const itemsKey = (id: string, field: string) => `${id}\0${field}`;

/** Item ids per `itemsKey(row, field)` for the given rows of `type`. */
export async function collectionItems(
  workspace: Workspace,
  type: string,
  fields: string[],
  ids: string[],
): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const unique = [...new Set(ids)];
  const names = [...new Set(fields)];
  if (unique.length === 0 || names.length === 0) return out;
  for (let i = 0; i < unique.length; i += CHUNK) {
    const [result] = await workspace.execute([
      {
        command: 'svc.entity/query',
        args: {
          query: {
            'q/from': type,
            'q/select': ['svc/id', ...names],
            'q/where': ['q/in', ['svc/id'], '$ids'],
            'q/limit': 'q/no-limit',
          },
          params: { $ids: unique.slice(i, i + CHUNK) },
        },
      },
    ]);
    if (!result?.success) throw new Error(result ? result.error.message : 'query failed');
    for (const r of result.result as Json[])
      for (const f of names)
        out.set(
          itemsKey(String(r['svc/id']), f),
          new Set(((r[f] as Json[] | null) ?? []).map((x) => String(x['svc/id']))),
        );
  }
  return out;
}

/**
 * add/remove-collection-items commands that make each row's collection hold exactly `wanted`:
 * every removal first, then every addition, each field's together in row order, so that the
 * workspace makes each field's changes as one run (the items removed and added for one row are
 * never the same, and an item taken by another row is taken whatever was removed first).
 */
export function replaceItemsCommands(
  type: string,
  current: Map<string, Set<string>>,
  wanted: { id: string; field: string; items: string[] }[],
): Json[] {
  const removals = new Map<string, Json[]>();
  const additions = new Map<string, Json[]>();
  const put = (to: Map<string, Json[]>, field: string, command: Json) => {
    const list = to.get(field);
    if (list) list.push(command);
    else to.set(field, [command]);
  };
  for (const w of wanted) {
    const have = current.get(itemsKey(w.id, w.field)) ?? new Set<string>();
    const want = new Set(w.items);
    const add = [...want].filter((i) => !have.has(i));
    const remove = [...have].filter((i) => !want.has(i));
    const args = (items: string[]) => ({
      type,
      field: w.field,
      entity: { 'svc/id': w.id },
      items: items.map((i) => ({ 'svc/id': i })),
    });
    if (remove.length > 0)
      put(removals, w.field, { command: 'svc.entity/remove-collection-items', args: args(remove) });
    if (add.length > 0)
      put(additions, w.field, { command: 'svc.entity/add-collection-items', args: args(add) });
  }
  return [...[...removals.values()].flat(), ...[...additions.values()].flat()];
}
