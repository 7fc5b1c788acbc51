import type { Principal } from '../auth/principal.js';
import { executeCommands } from '../commands/dispatcher.js';
import type { Driver } from '../db/driver.js';
import { type Catalog, DOCUMENT_TYPE, type FieldDef, loadCatalog, type TypeDef } from '../schema/catalog.js';

type Row = Record<string, unknown>;

// Entities as automations see them: `args.currentEntities` of a script, and the values a text
// template's {{Field}} and {{Relation.Field}} are filled from. Keys are field names without the
// `<app>/` part (this workspace has no separate UI labels: `bookshelf/title` is `title`); the
// system fields use the service's spelling (`Id`, `Public Id`, `Creation Date`, `Modification
// Date`); a to-one relation is {Id, Name}; `type` holds the type name; collections are left out.

const SYSTEM_KEYS: Record<string, string> = {
  'svc/id': 'Id',
  'svc/public-id': 'Public Id',
  'svc/creation-date': 'Creation Date',
  'svc/modification-date': 'Modification Date',
};

export const shortName = (name: string) => SYSTEM_KEYS[name] ?? name.slice(name.indexOf('/') + 1);
export const titleOf = (t: TypeDef): FieldDef | undefined =>
  t.fields.find((f) => f.meta['ui/title?'] === true);

function isDocument(catalog: Catalog, f: FieldDef) {
  return f.kind === 'one' && catalog.target(f).name === DOCUMENT_TYPE;
}

/** Loads entities of one type through svc.entity/query with every to-one target's primitive fields. */
export async function loadEntities(driver: Driver, user: Principal, typeName: string, ids: string[]) {
  const catalog = await loadCatalog(driver);
  const type = catalog.type(typeName);
  const select: unknown[] = [];
  for (const f of type.fields) {
    if (f.kind === 'primitive') select.push(f.name);
    else if (f.kind === 'one' && !isDocument(catalog, f)) {
      const target = catalog.target(f);
      select.push({ [f.name]: target.fields.filter((x) => x.kind === 'primitive').map((x) => x.name) });
    }
  }
  const [result] = await executeCommands(
    driver,
    [
      {
        command: 'svc.entity/query',
        args: {
          query: {
            'q/from': type.name,
            'q/select': select,
            'q/where': ['q/in', ['svc/id'], '$ids'],
            'q/limit': 'q/no-limit',
          },
          params: { $ids: ids },
        },
      },
    ],
    user,
  );
  if (!result?.success) throw new Error(result?.error.message ?? 'The entities could not be read');
  const rows = result.result as Row[];
  // Keep the order the ids were given in.
  const byId = new Map(rows.map((r) => [r['svc/id'], r]));
  return { catalog, type, rows: ids.map((id) => byId.get(id)).filter((r): r is Row => r !== undefined) };
}

/** One entity in the script shape. */
export function scriptEntity(catalog: Catalog, type: TypeDef, row: Row): Row {
  const out: Row = {};
  for (const f of type.fields) {
    if (!(f.name in row)) continue;
    const v = row[f.name];
    if (f.kind === 'one') {
      const target = catalog.target(f);
      const title = titleOf(target);
      out[shortName(f.name)] =
        v && typeof v === 'object'
          ? { Id: (v as Row)['svc/id'], Name: title ? ((v as Row)[title.name] ?? null) : null }
          : null;
    } else out[shortName(f.name)] = v;
  }
  out.type = type.name;
  return out;
}

const norm = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ');

function findField(t: TypeDef, name: string): FieldDef | undefined {
  const n = norm(name);
  return t.fields.find((f) => norm(f.name) === n || norm(shortName(f.name)) === n);
}

function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * Fills a text template: {{Field}} and {{Relation.Field}} (names matched without the app prefix,
 * case, spaces, dashes and underscores ignored). An unknown name is left as written, so a typo
 * shows in the message instead of vanishing.
 */
export function fillTemplate(template: string, catalog: Catalog, type: TypeDef, row: Row): string {
  return template.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (whole, path: string) => {
    const [head, ...rest] = path.split('.');
    const f = findField(type, head!);
    if (!f) return whole;
    const v = row[f.name];
    if (rest.length === 0) {
      if (f.kind === 'one' && v && typeof v === 'object') {
        const title = titleOf(catalog.target(f));
        return text(title ? (v as Row)[title.name] : (v as Row)['svc/id']);
      }
      return text(v);
    }
    if (f.kind !== 'one') return whole;
    const sub = findField(catalog.target(f), rest.join('.'));
    if (!sub) return whole;
    return v && typeof v === 'object' ? text((v as Row)[sub.name]) : '';
  });
}
