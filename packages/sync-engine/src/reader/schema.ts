import {
  numberFormat,
  relationCardinality,
  type SchemaField,
  type SchemaResponse,
  schemaFieldSubType,
  schemaFieldType,
} from '@weft/core/protocol';
import { z } from 'zod';
import { firstIssue, flag, isObject, num, orLeftOut, text } from './coerce.js';
import { collecting, type ReadResult, result, warn } from './warning.js';

// `POST /api/v1/synchronizer/schema` as the service reads it, one field at a time: a field it
// cannot make sense of (an unknown type, an unknown relation cardinality, a relation without a
// target) is left out with a warning naming the type and the field, and every other field and
// type syncs. What it can make sense of is taken: `title` for `name`, unknown subTypes (read as
// the plain type), string booleans and numbers, unknown keys.

const simple = z.looseObject({
  id: orLeftOut('id', z.string()),
  name: z.string().optional(),
  title: z.string().optional(),
  description: orLeftOut('description', z.string()),
  ignore: flag('ignore').optional(),
  readonly: flag('readonly').optional(),
  path: orLeftOut('path', z.string()),
  order: orLeftOut('order', num('order')),
  postProcessingFunctions: orLeftOut('postProcessingFunctions', z.array(z.string())),
});

const option = z.looseObject({
  name: text('name').pipe(z.string().min(1)),
  default: flag('default').optional(),
  final: flag('final').optional(),
  color: orLeftOut('color', z.string()),
  icon: orLeftOut('icon', z.string()),
});

/** The relation, or why the field cannot be a relation (then the field is left out). */
function readRelation(raw: unknown, fieldName: string, typeId: string): SchemaField['relation'] | string {
  if (!isObject(raw)) return 'the relation is not an object';
  const cardinality = relationCardinality.safeParse(raw.cardinality);
  if (!cardinality.success)
    return `unknown relation cardinality ${JSON.stringify(raw.cardinality)} (the service knows many-to-one, many-to-many, one-to-one)`;
  const targetType = typeof raw.targetType === 'string' && raw.targetType ? raw.targetType : undefined;
  if (!targetType) return 'the relation has no `targetType`';
  let { name, targetName, targetFieldId } = raw;
  if (typeof name !== 'string' || !name) {
    warn('relation.name', 'missing: the field name is the relation name');
    name = fieldName;
  }
  if (typeof targetName !== 'string' || !targetName) {
    warn('relation.targetName', 'missing: the source type is the name on the target side');
    targetName = typeId;
  }
  if (typeof targetFieldId !== 'string' || !targetFieldId) {
    warn('relation.targetFieldId', "missing: matched with the target's `id`");
    targetFieldId = 'id';
  }
  const out = {
    ...raw,
    cardinality: cardinality.data,
    name,
    targetName,
    targetType,
    targetFieldId,
  } as NonNullable<SchemaField['relation']>;
  if (raw.kind !== undefined && raw.kind !== 'native') {
    warn(
      'relation.kind',
      `unknown kind ${JSON.stringify(raw.kind)}: read as a relation between synced types`,
    );
    delete out.kind;
  }
  return out;
}

/**
 * A type or subType written in another case than the service's (`"ID"` for `id`) as the one it
 * names, with a warning: an app in production declares every id field `{"type": "ID"}`, and the
 * service syncs those fields as ids. Anything else is returned as it was, to be judged as it is.
 */
function anyCase(value: unknown, known: readonly string[], key: 'type' | 'subType'): unknown {
  if (typeof value !== 'string' || known.includes(value)) return value;
  const found = known.find((k) => k === value.toLowerCase());
  if (found) warn(key, `${JSON.stringify(value)} read as "${found}"`);
  return found ?? value;
}

/** One field, or why it is left out. */
function readField(typeId: string, fieldId: string, raw: unknown): SchemaField | string {
  if (!isObject(raw)) return 'not an object';
  const type = schemaFieldType.safeParse(anyCase(raw.type, schemaFieldType.options, 'type'));
  if (!type.success)
    return `unknown field type ${JSON.stringify(raw.type)} (the service knows ${schemaFieldType.options.join(', ')})`;
  const parsed = simple.safeParse(raw);
  if (!parsed.success) return firstIssue(parsed.error);
  const { title, ...keys } = parsed.data;
  let name = keys.name;
  if (!name) {
    if (title) warn('name', 'missing: the label is taken from `title`');
    else warn('name', 'missing: the field id is the label');
    name = title || fieldId;
  }
  const field: SchemaField = { ...keys, name, type: type.data };
  if (title !== undefined) (field as Record<string, unknown>).title = title;
  for (const k of ['description', 'ignore', 'readonly', 'path', 'order', 'postProcessingFunctions'] as const)
    if (field[k] === undefined) delete field[k];
  if (raw.subType !== undefined && raw.subType !== null) {
    const sub = schemaFieldSubType.safeParse(anyCase(raw.subType, schemaFieldSubType.options, 'subType'));
    if (sub.success) field.subType = sub.data;
    else {
      warn('subType', `unknown subType ${JSON.stringify(raw.subType)}: read as plain ${type.data}`);
      delete (field as Record<string, unknown>).subType;
    }
  } else delete (field as Record<string, unknown>).subType;
  if (raw.relation !== undefined && raw.relation !== null) {
    const relation = readRelation(raw.relation, name, typeId);
    if (typeof relation === 'string') return relation;
    field.relation = relation;
  } else delete (field as Record<string, unknown>).relation;
  if (raw.format !== undefined) {
    const format = numberFormat.safeParse(raw.format);
    if (format.success) field.format = format.data;
    else {
      warn('format', `${firstIssue(format.error, 'format')}: left out (the field keeps its plain type)`);
      delete (field as Record<string, unknown>).format;
    }
  }
  const options = readOptions(raw.options);
  if (options) field.options = options;
  else delete (field as Record<string, unknown>).options;
  if (field.subType === 'workflow') {
    if (!field.options || field.options.length === 0)
      warn('options', 'none: the states are inferred from the values, as the service does');
    else {
      const problem = workflowProblem(field.options);
      if (problem) return problem;
    }
  }
  return field;
}

/** Select options: each needs a name, names are unique; one that is not is left out. */
function readOptions(raw: unknown): SchemaField['options'] {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    warn('options', 'not an array: left out (the options are inferred from the values)', true);
    return undefined;
  }
  const options: NonNullable<SchemaField['options']> = [];
  const names = new Set<string>();
  for (const [i, o] of raw.entries()) {
    const read = option.safeParse(o);
    if (!read.success) warn(`options.${i}`, `${firstIssue(read.error)}: the option is left out`, true);
    else if (names.has(read.data.name))
      warn(`options.${i}`, `a second option named ${JSON.stringify(read.data.name)}: left out`, true);
    else {
      names.add(read.data.name);
      options.push(read.data);
    }
  }
  return options;
}

/**
 * A workflow's states, when it names them: one where new rows start (`default`) and one that ends
 * it (`final`). Without `options` the service infers the states from the values (its integration
 * docs: "If the options property is missing, Fibery will try to identify options based on your
 * data dynamically"), as it does a select's.
 */
function workflowProblem(options: NonNullable<SchemaField['options']>): string | undefined {
  const defaults = options.filter((o) => o.default === true).length;
  const finals = options.filter((o) => o.final === true).length;
  if (defaults !== 1 || finals !== 1)
    return `a workflow needs exactly one \`default\` and one \`final\` option, found ${defaults} and ${finals}`;
  return undefined;
}

/** Reads the schema answer as the service does, confining what it cannot read to one field or type. */
export function readSchema(raw: unknown, types?: readonly string[]): ReadResult<SchemaResponse> {
  const { value, warnings } = collecting('schema', (): SchemaResponse | string => {
    if (!isObject(raw)) return 'body: not a JSON object';
    const out: SchemaResponse = {};
    for (const [typeId, fields] of Object.entries(raw)) {
      if (types && !types.includes(typeId)) {
        warn(typeId, 'not a requested type: ignored');
        continue;
      }
      if (!isObject(fields)) {
        warn(typeId, 'not an object of fields: the type is left out', true);
        continue;
      }
      const read: Record<string, SchemaField> = {};
      for (const [fieldId, field] of Object.entries(fields)) {
        const one = collecting(`schema.${typeId}.${fieldId}`, () => readField(typeId, fieldId, field)).value;
        if (typeof one === 'string') warn(`${typeId}.${fieldId}`, `${one}: the field is left out`, true);
        else read[fieldId] = one;
      }
      out[typeId] = read;
    }
    for (const t of types ?? [])
      if (!(t in out) && !(t in raw)) warn(t, 'no schema for this requested type', true);
    return out;
  });
  return result(value, warnings);
}
