import { canAccessField, type Principal } from '../auth/principal.js';
import type { Effect } from '../commands/context.js';
import { canReadAllOf } from '../documents/document-access.js';
import type { Catalog, TypeDef } from '../schema/catalog.js';
import { MODIFIED } from '../entities/update-entities.js';

// A delivery carries what its subscriber may read, no more: effects are recorded as the acting
// user saw them, and the subscriber may be someone else. Values of fields closed to the subscriber
// are left out; an effect that only touched closed fields (an update of them, a link through a
// closed collection) is left out whole, so a delivery does not even say that they changed.

type Values = Record<string, unknown>;

const isValues = (v: unknown): v is Values => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields a set of values names, the modification date aside. */
const changedFields = (values: Values) =>
  Object.keys(values).length - (Object.hasOwn(values, MODIFIED) ? 1 : 0);

/** Whether `user` may subscribe to `type`: a user who may not see all of its entities may not. */
export function maySubscribe(catalog: Catalog, user: Principal, type: TypeDef): boolean {
  return canReadAllOf(catalog, user, type);
}

function openValues(type: TypeDef, user: Principal, values: Values): Values {
  const out: Values = {};
  for (const [name, value] of Object.entries(values)) {
    const f = type.byName.get(name);
    if (f && canAccessField(user, type, f)) out[name] = value;
  }
  return out;
}

/** The effects as `subscriber` may see them (all of them, unchanged, for an admin). */
export function visibleEffects(
  catalog: Catalog,
  subscriber: Principal,
  effects: readonly Effect[],
): Effect[] {
  if (subscriber.admin) return [...effects];
  const out: Effect[] = [];
  const readable = new Map<string, boolean>();
  for (const e of effects) {
    const type = catalog.findType(e.type);
    if (!type) continue;
    if (!readable.has(type.name)) readable.set(type.name, maySubscribe(catalog, subscriber, type));
    if (!readable.get(type.name)) continue;
    if (typeof e.field === 'string') {
      const f = type.byName.get(e.field);
      if (!f || !canAccessField(subscriber, type, f)) continue;
    }
    const shown: Effect = { ...e };
    let emptied = false;
    for (const key of ['values', 'valuesBefore'] as const) {
      const v = e[key];
      if (!isValues(v)) continue;
      const open = openValues(type, subscriber, v);
      shown[key] = open;
      // The modification date an update carries beside its fields says nothing on its own.
      if (changedFields(v) > 0 && changedFields(open) === 0) emptied = true;
    }
    if (emptied && e.effect === 'svc.entity/update') continue;
    out.push(shown);
  }
  return out;
}
