import type { Queryable } from '../db/driver.js';
import { WorkspaceError } from '../errors.js';

// The in-memory picture of the schema: types, their fields and where each field is stored.
// Loaded from svc_types/svc_fields; reused while the schema token in svc_meta is unchanged.

export const PRIMITIVE_TYPES = [
  'svc/int',
  'svc/decimal',
  'svc/bool',
  'svc/text',
  'svc/email',
  'svc/emoji',
  'svc/date',
  'svc/date-time',
  'svc/date-range',
  'svc/date-time-range',
  'svc/location',
  'svc/uuid',
  'svc/rank',
  'svc/json-value',
  // As the service's own schema lists them: a URL field of the users' types, an option's colour.
  'svc/url',
  'svc/color',
] as const;
export type PrimitiveType = (typeof PRIMITIVE_TYPES)[number];
export const isPrimitiveType = (t: string): t is PrimitiveType =>
  (PRIMITIVE_TYPES as readonly string[]).includes(t);

export const DOCUMENT_TYPE = 'Collaboration~Documents/Document';
export const USER_TYPE = 'svc/user';
export const DOCUMENT_SECRET = 'Collaboration~Documents/secret';

/** Where a field's values live. */
export type Storage =
  /** a column of the type's table (primitive, or the foreign key of a to-one field) */
  | { kind: 'column'; col: string }
  /** a collection whose partner is a to-one field: the partner's column on the target table */
  | { kind: 'reverse'; partner: string }
  /** a collection stored in a join table: `self` holds this entity's id, `other` the item's */
  | { kind: 'join'; table: string; self: string; other: string };

export type FieldKind = 'primitive' | 'one' | 'many';

export interface FieldDef {
  id: string;
  name: string;
  typeId: string;
  /** a primitive type name, or `ref` for entity, collection, single-select and rich-text fields */
  fieldType: string;
  kind: FieldKind;
  targetTypeId: string | null;
  storage: Storage;
  meta: Record<string, unknown>;
  /**
   * Closed to users without the admin role (set by the Catalog): a secured field of a secured
   * type, or the partner of one, since a relation is one set of links read and written from
   * either side.
   */
  restricted: boolean;
}

export interface TypeDef {
  id: string;
  name: string;
  table: string;
  meta: Record<string, unknown>;
  description: string | null;
  builtin: boolean;
  fields: FieldDef[];
  byName: Map<string, FieldDef>;
}

export class Catalog {
  readonly types: TypeDef[];
  private readonly byName = new Map<string, TypeDef>();
  private readonly byId = new Map<string, TypeDef>();
  private readonly fieldsById = new Map<string, FieldDef>();
  private byRelation: Map<string, FieldDef[]> | undefined;

  constructor(
    readonly token: string,
    readonly schemaId: string,
    readonly version: string,
    types: TypeDef[],
  ) {
    this.types = types;
    for (const t of types) {
      this.byName.set(t.name, t);
      this.byId.set(t.id, t);
      for (const f of t.fields) this.fieldsById.set(f.id, f);
    }
    const securedHere = (f: FieldDef) =>
      this.byId.get(f.typeId)?.meta['svc/secured?'] === true && f.meta['svc/secured?'] === true;
    for (const t of types)
      for (const f of t.fields) {
        const partner = this.partner(f);
        f.restricted = securedHere(f) || (partner !== undefined && securedHere(partner));
      }
  }

  /** The other field of the relation a relation field belongs to, if the relation has two. */
  partner(field: FieldDef): FieldDef | undefined {
    if (field.kind === 'primitive') return undefined;
    if (field.storage.kind === 'reverse') return this.fieldsById.get(field.storage.partner);
    const relation = field.meta['svc/relation'];
    if (!relation) return undefined;
    if (!this.byRelation) {
      this.byRelation = new Map();
      for (const f of this.fieldsById.values()) {
        const r = f.meta['svc/relation'];
        if (typeof r !== 'string' || f.kind === 'primitive') continue;
        const list = this.byRelation.get(r) ?? [];
        list.push(f);
        this.byRelation.set(r, list);
      }
    }
    return this.byRelation
      .get(relation as string)
      ?.find((f) => f.id !== field.id && f.targetTypeId === field.typeId);
  }

  findType(name: string): TypeDef | undefined {
    return this.byName.get(name);
  }

  type(name: unknown): TypeDef {
    const t = typeof name === 'string' ? this.byName.get(name) : undefined;
    if (!t) throw new WorkspaceError(400, 'unknown-type', `Unknown type ${JSON.stringify(name)}`);
    return t;
  }

  typeById(id: string): TypeDef {
    const t = this.byId.get(id);
    if (!t) throw new WorkspaceError(500, 'internal', 'Catalog is inconsistent');
    return t;
  }

  fieldById(id: string): FieldDef | undefined {
    return this.fieldsById.get(id);
  }

  field(type: TypeDef, name: unknown): FieldDef {
    const f = typeof name === 'string' ? type.byName.get(name) : undefined;
    if (!f)
      throw new WorkspaceError(
        400,
        'unknown-field',
        `Type ${type.name} has no field ${JSON.stringify(name)}`,
      );
    return f;
  }

  target(field: FieldDef): TypeDef {
    if (!field.targetTypeId)
      throw new WorkspaceError(400, 'invalid-query', `Field ${field.name} is not a relation`);
    return this.typeById(field.targetTypeId);
  }

  /** The name shown as a field's svc/type: its primitive type or its target type's name. */
  fieldTypeName(field: FieldDef): string {
    return field.targetTypeId ? this.typeById(field.targetTypeId).name : field.fieldType;
  }

  isRichText(field: FieldDef): boolean {
    return field.kind === 'one' && this.fieldTypeName(field) === DOCUMENT_TYPE;
  }
}

interface TypeRow {
  id: string;
  name: string;
  tbl: string;
  meta: Record<string, unknown>;
  description: string | null;
  builtin: boolean;
}
interface FieldRow {
  id: string;
  type_id: string;
  name: string;
  field_type: string;
  target_type: string | null;
  kind: FieldKind;
  storage: Storage;
  meta: Record<string, unknown>;
}

let cached: Catalog | undefined;

export async function schemaToken(q: Queryable): Promise<string> {
  const { rows } = await q.query<{ value: string }>(`SELECT value FROM svc_meta WHERE key = 'schema_token'`);
  return rows[0]!.value;
}

/** The field the service shows as an entity's title (`ui/title?`), if the type has one. */
export const titleField = (t: TypeDef): FieldDef | undefined =>
  t.fields.find((f) => f.meta['ui/title?'] === true);

/**
 * The catalog last loaded, without asking the database: whoever uses it must check that the
 * schema token is still this catalog's, inside its transaction or its statement (as loadCatalog
 * and uncheckedQuery do).
 */
export function lastCatalog(): Catalog | undefined {
  return cached;
}

/** The catalog as seen by `q` (inside a transaction: including its own uncommitted changes). */
export async function loadCatalog(q: Queryable): Promise<Catalog> {
  const token = await schemaToken(q);
  if (cached && cached.token === token) return cached;
  const meta = await q.query<{ key: string; value: string }>(`SELECT key, value FROM svc_meta`);
  const m = new Map(meta.rows.map((r) => [r.key, r.value]));
  const types = await q.query<TypeRow>(
    `SELECT id, name, tbl, meta, description, builtin FROM svc_types ORDER BY ord`,
  );
  const fields = await q.query<FieldRow>(
    `SELECT id, type_id, name, field_type, target_type, kind, storage, meta FROM svc_fields ORDER BY ord`,
  );
  const defs: TypeDef[] = types.rows.map((r) => ({
    id: r.id,
    name: r.name,
    table: r.tbl,
    meta: r.meta,
    description: r.description,
    builtin: r.builtin,
    fields: [],
    byName: new Map(),
  }));
  const byId = new Map(defs.map((d) => [d.id, d]));
  for (const r of fields.rows) {
    const t = byId.get(r.type_id);
    if (!t) continue;
    const f: FieldDef = {
      id: r.id,
      name: r.name,
      typeId: r.type_id,
      fieldType: r.field_type,
      kind: r.kind,
      targetTypeId: r.target_type,
      storage: r.storage,
      meta: r.meta,
      restricted: false,
    };
    t.fields.push(f);
    t.byName.set(f.name, f);
  }
  const catalog = new Catalog(token, m.get('schema_id') ?? '', m.get('schema_version') ?? '1', defs);
  cached = catalog;
  return catalog;
}
