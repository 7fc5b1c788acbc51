import type { Queryable } from '../db/driver.js';
import { type Catalog, loadCatalog } from './catalog.js';
import { createField, setTypeMeta } from './schema-store.js';

// An option type (a single- or multi-select's options, a workflow's states: `svc/enum?`) has,
// besides `enum/name` and its rank, a colour and an icon, as every one in the service's own schema
// does: `enum/color` (svc/color) and `enum/icon` (svc/emoji). Clients copying options from the
// service set both.

/**
 * The meta of an option type, as the service's schema shows every one: a component of the types
 * that select from it, its options ranked.
 */
export const OPTION_TYPE_META = {
  'svc/enum?': true,
  'svc/type-component?': true,
  'app/mixins': { 'svc/rank-mixin': true },
} as const;

type FieldSpec = { 'svc/name': string; 'svc/type': string; 'svc/meta': Record<string, unknown> };

/** The fields of a new option type, `enum/name` first (its title). */
export function optionTypeFields(...more: FieldSpec[]): FieldSpec[] {
  return [
    { 'svc/name': 'enum/name', 'svc/type': 'svc/text', 'svc/meta': { 'ui/title?': true } },
    ...LOOKS,
    { 'svc/name': 'svc/rank', 'svc/type': 'svc/rank', 'svc/meta': {} },
    ...more,
  ];
}

const LOOKS: FieldSpec[] = [
  { 'svc/name': 'enum/color', 'svc/type': 'svc/color', 'svc/meta': {} },
  { 'svc/name': 'enum/icon', 'svc/type': 'svc/emoji', 'svc/meta': {} },
];

/**
 * Gives the option types made before they had a colour, an icon and the service's meta (or made
 * by hand) what they lack; their other meta is kept.
 */
export async function addMissingOptionFields(tx: Queryable, current: Catalog): Promise<void> {
  let catalog = current;
  for (const type of current.types) {
    if (type.meta['svc/enum?'] !== true) continue;
    const mixins = (type.meta['app/mixins'] as Record<string, boolean> | undefined) ?? {};
    if (type.meta['svc/type-component?'] !== true || mixins['svc/rank-mixin'] !== true)
      await setTypeMeta(tx, type.id, {
        'svc/type-component?': true,
        'app/mixins': { ...mixins, 'svc/rank-mixin': true },
      });
    for (const look of LOOKS) {
      if (catalog.type(type.name).byName.has(look['svc/name'])) continue;
      await createField(tx, catalog, {
        holderType: type.name,
        name: look['svc/name'],
        type: look['svc/type'],
        meta: look['svc/meta'],
      });
      catalog = await loadCatalog(tx);
    }
  }
}
