import type { Queryable } from '../db/driver.js';
import { RESERVED_NAMESPACES } from '../schema/builtins.js';
import { loadCatalog } from '../schema/catalog.js';
import { namespaceFor } from './schema-mapping.js';

// An app's types live in a namespace no other type uses: derived from the app's name, and when
// that one is taken (by a type anyone made, a built-in, the workspace's own names, another
// source) the first free `<name>-2`, `<name>-3`... It is chosen once, when the source is added,
// and recorded with it (weft_host_sources.namespace), so every later sync writes into the types
// this source made and never into types it did not make.

const namespaceOf = (typeName: string) => typeName.slice(0, Math.max(0, typeName.indexOf('/'))).toLowerCase();

/** A namespace for a new source of the app named `appName`. */
export async function chooseNamespace(q: Queryable, appName: string): Promise<string> {
  const taken = new Set(RESERVED_NAMESPACES);
  for (const t of (await loadCatalog(q)).types) taken.add(namespaceOf(t.name));
  const { rows } = await q.query<{ namespace: string }>(`SELECT namespace FROM weft_host_sources`);
  for (const r of rows) taken.add(r.namespace.toLowerCase());
  const base = namespaceFor(appName);
  let namespace = base;
  for (let n = 2; taken.has(namespace); n++) namespace = `${base}-${n}`;
  return namespace;
}
