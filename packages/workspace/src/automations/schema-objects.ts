import type { Catalog } from '../schema/catalog.js';
import { fieldTitle } from './entity-shapes.js';

// A script's `getSchema()` answers the schema object as svc.schema/query does, and with it the
// objects the service's scripts walk: `typeObjects`, each type with its `fieldObjects`, a field
// found by its `title` as the UI shows it (`fieldObjects.find((f) => f.title === 'Is
// Template')`), a type's `idField`, `titleField` and `rankField` named for queries. They are read
// from the answer as the script receives it, so their names are in the script's namespace word
// (`fibery/id` under the fibery setting); titles come from the catalog by field id, as the UI shows
// them (fieldTitle). Inside the script they are linked (script-guest.ts): `typeObjectsByName`,
// `fieldObjectsByName`, a field's `typeObject`, `holderTypeObject` and `relatedFieldObject`.

type Row = Record<string, unknown>;

const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);
/** The part of a name after its `<app>/` prefix. */
const afterPrefix = (name: string) => name.slice(name.indexOf('/') + 1);

/** `schema` (svc.schema/query's answer in the namespace `word`) with its typeObjects. */
export function withTypeObjects(schema: unknown, catalog: Catalog, word: string): unknown {
  if (!isRow(schema) || !Array.isArray(schema[`${word}/types`])) return schema;
  const n = (name: string) => `${word}/${name}`;
  const types = (schema[n('types')] as unknown[]).filter(isRow);
  const metaOf = (v: Row): Row => (isRow(v[n('meta')]) ? (v[n('meta')] as Row) : {});
  // The primitive types are in the answer too, marked so.
  const primitives = new Set(
    types.filter((t) => metaOf(t)[n('primitive?')] === true).map((t) => t[n('name')]),
  );
  const defs = new Map(catalog.types.map((t) => [t.id, t]));
  const typeObjects = types.map((type) => {
    const typeName = String(type[n('name')]);
    const meta = metaOf(type);
    const def = defs.get(String(type[n('id')]));
    const fieldDefs = new Map(def?.fields.map((f) => [f.id, f]));

    const fieldObjects = (Array.isArray(type[n('fields')]) ? (type[n('fields')] as unknown[]) : [])
      .filter(isRow)
      .map((field) => {
        const name = String(field[n('name')]);
        const fieldType = String(field[n('type')]);
        const fieldMeta = metaOf(field);
        const svcField = fieldDefs.get(String(field[n('id')]));
        const primitive = primitives.has(fieldType);
        return {
          id: field[n('id')],
          name,
          title: def && svcField ? fieldTitle(def, svcField) : afterPrefix(name),
          type: fieldType,
          holderType: typeName,
          isPrimitive: primitive,
          isRelation: !primitive,
          isCollection: fieldMeta[n('collection?')] === true,
          isTitle: fieldMeta['ui/title?'] === true,
          isReadOnly: fieldMeta[n('readonly?')] === true,
          isId: name === n('id'),
          isPublicId: name === n('public-id'),
          isDeleted: false,
          relation: fieldMeta[n('relation')] ?? null,
          linkRule: null,
          rawMeta: fieldMeta,
        };
      });
    const has = (name: string) => (fieldObjects.some((f) => f.name === name) ? name : null);
    return {
      id: type[n('id')],
      name: typeName,
      title: afterPrefix(typeName),
      isDomain: meta[n('domain?')] === true,
      isPrimitive: meta[n('primitive?')] === true,
      isEnum: meta[n('enum?')] === true,
      idField: has(n('id')),
      publicIdField: has(n('public-id')),
      titleField: fieldObjects.find((f) => f.isTitle)?.name ?? null,
      rankField: has(n('rank')),
      creationDateField: has(n('creation-date')),
      modificationDateField: has(n('modification-date')),
      rawMeta: meta,
      fieldObjects,
    };
  });
  return { ...schema, typeObjects };
}
