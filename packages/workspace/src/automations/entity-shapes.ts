import { canAccessField, type Principal } from '../auth/principal.js';
import { executeCommands } from '../commands/dispatcher.js';
import type { Driver } from '../db/driver.js';
import {
  type Catalog,
  DOCUMENT_SECRET,
  DOCUMENT_TYPE,
  type FieldDef,
  loadCatalog,
  titleField,
  type TypeDef,
} from '../schema/catalog.js';

type Row = Record<string, unknown>;

// Entities as automations see them: `args.currentEntities` of a script, and the values a text
// template's {{Field}} and {{Relation.Field}} are filled from. Keys are spelled as in the UI: a
// field's label (the `ui/label` meta the app host sets from the app's schema, e.g. `Updated At`)
// when it has one, else its name without the `<app>/` part (`bookshelf/pages` is `pages`); the
// system fields use the service's spelling (`Id`, `Public Id`, `Creation Date`, `Modification
// Date`, `Created By`), and so do its extensions' (`Rank`, `State`, `Assignees`, `Files`,
// `Comments`); the title is also `Name`; a to-one relation is {Id, Name}; `type` holds the type
// name; collections are left out. The name without the prefix still works where a label replaced
// it: in templates, and in scripts as a hidden alias of the labelled key (not listed by
// Object.keys or JSON), as `Name` is (and `id` of anything with an `Id`, see script-guest.ts). A
// rich-text field is {Id, Secret}, the secret getDocumentContent takes.

const SYSTEM_KEYS: Record<string, string> = {
  'svc/id': 'Id',
  'svc/public-id': 'Public Id',
  'svc/creation-date': 'Creation Date',
  'svc/modification-date': 'Modification Date',
  'svc/created-by': 'Created By',
};

/**
 * The service's keys of its extensions' fields (`State` of the workflow, `Rank`, ...): the key,
 * with the name without the prefix (`state`, `rank`) as a hidden alias.
 */
const EXTENSION_KEYS: Record<string, string> = {
  'svc/rank': 'Rank',
  'workflow/state': 'State',
  'assignments/assignees': 'Assignees',
  'Files/Files': 'Files',
  'comments/comments': 'Comments',
};
/** The key the service's UI gives a type's title field. */
const TITLE_KEY = 'Name';

export const shortName = (name: string) => SYSTEM_KEYS[name] ?? name.slice(name.indexOf('/') + 1);

/** The field meta key holding a field's label, as the app host stores it. */
export const LABEL_META = 'ui/label';
/** Where an entity in a script's args carries its aliases ({short name: key}) until the sandbox hides them. */
export const ALIASES_KEY = '__weftAliases';

const labelOf = (f: FieldDef) => {
  const v = f.meta[LABEL_META];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
};

const keysCache = new WeakMap<TypeDef, Map<string, string>>();

/**
 * Keys no field takes: `type` holds the type's name, and `id` is the entity's `Id` (a hidden
 * alias, see script-guest.ts), as the service's script template reads `entity.id` on any type.
 * A synced type's own `<app>/id` field is keyed by its full name.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['type', 'id']);

/** The prefixes of the service's own fields (its extensions' included), which its UI titles itself. */
const SERVICE_PREFIXES = new Set([
  'svc',
  'enum',
  'user',
  'workflow',
  'comments',
  'Files',
  'assignments',
  'Collaboration~Documents',
]);
const isServiceField = (name: string) => SERVICE_PREFIXES.has(name.slice(0, name.indexOf('/')));
/**
 * How the service's UI titles its own fields: the name after the prefix, each word capitalised
 * (`svc/content-type` is `Content Type`, `user/email` is `Email`, `Collaboration~Documents/secret`
 * is `Secret`), as scripts read a file's `Secret` or a user's `Email`.
 */
const serviceTitle = (name: string) =>
  shortName(name)
    .split(/[-\s]+/)
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ');

/**
 * The key of each field of a type (field name → key): system fields in the service's spelling,
 * the service's own fields as its UI titles them, then labels (a label already taken is not used
 * twice), then names without the app prefix.
 */
export function fieldKeys(t: TypeDef): Map<string, string> {
  const cached = keysCache.get(t);
  if (cached) return cached;
  const keys = new Map<string, string>();
  const taken = new Set<string>(RESERVED_KEYS);
  const claim = (f: FieldDef, key: string | undefined) => {
    if (key === undefined || taken.has(key) || keys.has(f.name)) return;
    keys.set(f.name, key);
    taken.add(key);
  };
  for (const f of t.fields) claim(f, SYSTEM_KEYS[f.name] ?? EXTENSION_KEYS[f.name]);
  for (const f of t.fields) if (t.builtin || isServiceField(f.name)) claim(f, serviceTitle(f.name));
  for (const f of t.fields) claim(f, labelOf(f));
  for (const f of t.fields) claim(f, shortName(f.name));
  for (const f of t.fields) claim(f, f.name);
  keysCache.set(t, keys);
  return keys;
}

/**
 * The field's name as the UI shows it: its key, except where scripts key it by its full name (a
 * synced `<app>/id`, since `id` is the entity's own), which is shown without the prefix.
 */
export function fieldTitle(t: TypeDef, f: FieldDef): string {
  const key = fieldKeys(t).get(f.name);
  return key === undefined || key === f.name ? shortName(f.name) : key;
}

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
    // A rich-text field as scripts read it: its document's secret (scriptValue).
    else if (f.kind === 'one' && isDocument(catalog, f)) select.push(scriptSelect(catalog, f, user));
    else if (f.kind === 'one') {
      const target = catalog.target(f);
      // Only what this user may read of it (a user's e-mail is for admins).
      const readable = target.fields.filter((x) => x.kind === 'primitive' && canAccessField(user, target, x));
      select.push({ [f.name]: readable.map((x) => x.name) });
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
  const keys = fieldKeys(type);
  const used = new Set(keys.values());
  const aliases: Record<string, string> = {};
  for (const f of type.fields) {
    if (!(f.name in row)) continue;
    const v = row[f.name];
    const key = keys.get(f.name) ?? f.name;
    const short = shortName(f.name);
    if (short !== key && !used.has(short) && !RESERVED_KEYS.has(short)) aliases[short] = key;
    out[key] = f.kind === 'primitive' ? v : scriptValue(catalog, f, v);
  }
  // The title as the service's scripts read it (`entity.Name`), where its key is another.
  const title = titleField(type);
  const titleKey = title ? keys.get(title.name) : undefined;
  if (titleKey !== undefined && titleKey !== TITLE_KEY && !used.has(TITLE_KEY) && title!.name in row)
    aliases[TITLE_KEY] = titleKey;
  out.type = type.name;
  if (Object.keys(aliases).length > 0) out[ALIASES_KEY] = aliases;
  return out;
}

/**
 * How a script's field list asks for a field (svc.entity/query's q/select entry): a relation with
 * what its script value shows of the target (see scriptValue): its id and its title where `user`
 * may read it, or a document's secret.
 */
export function scriptSelect(catalog: Catalog, f: FieldDef, user: Principal): unknown {
  if (f.kind === 'primitive') return f.name;
  const target = catalog.target(f);
  const title = titleField(target);
  const shown =
    target.name === DOCUMENT_TYPE
      ? ['svc/id', DOCUMENT_SECRET]
      : title && canAccessField(user, target, title)
        ? ['svc/id', title.name]
        : ['svc/id'];
  return { [f.name]: f.kind === 'one' ? shown : { 'q/select': shown, 'q/limit': 'q/no-limit' } };
}

/**
 * A field's value as the service's scripts read it: a to-one relation (a select, a user) is
 * `{Id, Name}`, a rich-text field `{Id, Secret}`, a collection `[{Id, Name}]`; a primitive as it is.
 */
export function scriptValue(catalog: Catalog, f: FieldDef, v: unknown): unknown {
  if (f.kind === 'primitive') return v;
  const target = catalog.target(f);
  const title = titleField(target);
  const one = (x: unknown): Row | null => {
    if (!x || typeof x !== 'object') return null;
    const r = x as Row;
    if (target.name === DOCUMENT_TYPE) return { Id: r['svc/id'], Secret: r[DOCUMENT_SECRET] ?? null };
    return { Id: r['svc/id'], Name: title ? (r[title.name] ?? null) : null };
  };
  if (f.kind === 'one') return one(v);
  return Array.isArray(v) ? v.map(one).filter((x) => x !== null) : [];
}

/**
 * The field a script names `key`: by its full name, by its key as entities show it (a label,
 * `Id`, `Public Id`, ...), or by its name without the app prefix, exactly as written.
 */
export function fieldByKey(t: TypeDef, key: string): FieldDef | undefined {
  const byName = t.byName.get(key);
  if (byName) return byName;
  for (const [name, k] of fieldKeys(t)) if (k === key) return t.byName.get(name);
  return t.fields.find((f) => shortName(f.name) === key) ?? (key === TITLE_KEY ? titleField(t) : undefined);
}

const norm = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ');

/** A field by its label first, then by its name with or without the app prefix. */
function findField(t: TypeDef, name: string): FieldDef | undefined {
  const n = norm(name);
  const keys = fieldKeys(t);
  return (
    t.fields.find((f) => norm(keys.get(f.name) ?? '') === n) ??
    t.fields.find((f) => norm(f.name) === n || norm(shortName(f.name)) === n)
  );
}

function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * Fills a text template: {{Field}} and {{Relation.Field}} (a field's label, else its name without
 * the app prefix; case, spaces, dashes and underscores ignored). An unknown name is left as written, so a typo
 * shows in the message instead of vanishing.
 */
export function fillTemplate(template: string, catalog: Catalog, type: TypeDef, row: Row): string {
  return template.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (whole, path: string) => {
    const [head, ...rest] = path.split('.');
    const f = findField(type, head!);
    if (!f) return whole;
    // A rich-text field's value is its document's id and secret: a template never shows them.
    if (isDocument(catalog, f)) return '';
    const v = row[f.name];
    if (rest.length === 0) {
      if (f.kind === 'one' && v && typeof v === 'object') {
        const title = titleField(catalog.target(f));
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
