import { type SchemaResponse, SYNC_ACTION_FIELD } from '@weft/core/protocol';
import { appRequests, type Exchange, formatWarning, type ReaderWarning, readSchema } from '@weft/sync-engine';
import { type Context, jsonAnswerProblem } from '../context.js';
import { isPlainObject } from '../util.js';
import { notesReason } from './read-verdict.js';

export interface RelationInfo {
  /** `kind: "native"`: points at the workspace's own users, not at a synced type. */
  native?: boolean;
  cardinality: string;
  name: string;
  targetType: string;
  targetName: string;
  targetFieldId: string;
}

export interface FieldInfo {
  id: string;
  type: string | undefined;
  subType: string | undefined;
  /** Set only when the relation object is valid. */
  relation?: RelationInfo;
}

/** Usable schema per type id: field id -> field. */
export type SchemaInfo = Map<string, Map<string, FieldInfo>>;

const MAX_LINES = 8;
function list(lines: string[]): string | undefined {
  if (lines.length === 0) return undefined;
  const shown = lines.slice(0, MAX_LINES);
  if (lines.length > MAX_LINES) shown.push(`and ${lines.length - MAX_LINES} more`);
  return shown.join('; ');
}

/** The schema as the kit read it: what the checks use, and what every data request carries. */
export interface CheckedSchema {
  info: SchemaInfo;
  /** the types' schema as the engine read the app's answer (what the service sends back as `schema`) */
  answer: SchemaResponse;
}

/**
 * The schema of `types` (those the run syncs). A relation may point at any of `configured` (every
 * type the app declares): a type the user left out is still a valid target.
 */
export async function checkSchema(
  ctx: Context,
  types: string[],
  filter: Record<string, unknown>,
  account: Record<string, unknown> | undefined,
  configured: string[] = types,
): Promise<CheckedSchema | undefined> {
  const ex = await ctx.send(appRequests.schema(types, filter, account ?? {}));
  const problem =
    jsonAnswerProblem(ex) ?? (isPlainObject(ex.json) ? undefined : 'the schema is not a JSON object');
  ctx.expect('schema.response', problem, { exchange: ex });
  if (problem || !isPlainObject(ex.json)) return undefined;
  // Read with the engine's reader, as the host reads it: a field it cannot read is left out (and
  // fails here, the service would not sync it); what it takes with a note passes.
  const read = readSchema(ex.json, types);
  const answer = read.ok ? read.value : {};
  return { info: judgeSchema(ctx, ex, ex.json, read, answer, types, configured), answer };
}

function judgeSchema(
  ctx: Context,
  ex: Exchange,
  raw: Record<string, unknown>,
  read: ReturnType<typeof readSchema>,
  schema: SchemaResponse,
  types: string[],
  configured: string[],
): SchemaInfo {
  const missing = types.filter((t) => !(t in raw));
  const notObjects = types.filter((t) => t in raw && !isPlainObject(raw[t]));
  const extra = Object.keys(raw).filter((t) => !types.includes(t));
  if (missing.length || notObjects.length) {
    const parts = [];
    if (missing.length) parts.push(`no schema for requested type(s): ${missing.join(', ')}`);
    if (notObjects.length) parts.push(`schema is not an object of fields: ${notObjects.join(', ')}`);
    ctx.fail('schema.types', { reason: parts.join('; '), exchange: ex });
  } else if (extra.length) {
    ctx.warn('schema.types', {
      reason: `schema for types that were not requested: ${extra.join(', ')}`,
      exchange: ex,
    });
  } else {
    ctx.pass('schema.types', { reason: `${types.length} type(s)` });
  }

  const dropped = read.warnings.filter((w) => w.dropped && !isTypeWarning(w, types));
  const relationDropped = dropped.filter(isRelationWarning);
  const optionDropped = dropped.filter((w) => !isRelationWarning(w) && isOptionWarning(w));
  const fieldDropped = dropped.filter((w) => !isRelationWarning(w) && !isOptionWarning(w));

  const info: SchemaInfo = new Map();
  const fieldWarnings: string[] = [];
  const idName: string[] = [];
  let selectCount = 0;
  let relationCount = relationDropped.length;

  for (const typeId of types) {
    const fields = schema[typeId];
    if (!fields) continue;
    const map = new Map<string, FieldInfo>();
    info.set(typeId, map);
    for (const [fieldId, field] of Object.entries(fields)) {
      const where = `${typeId}.${fieldId}`;
      if (typeof field.id === 'string' && field.id !== fieldId) {
        fieldWarnings.push(`${where}: \`id\` is '${field.id}' but the field is keyed '${fieldId}'`);
      }
      const fi: FieldInfo = { id: fieldId, type: field.type, subType: field.subType };
      if (field.relation) {
        relationCount++;
        fi.relation = { ...field.relation };
        if (field.relation.kind === 'native') fi.relation.native = true;
      }
      if (fi.subType && SELECT_SUBTYPES.has(fi.subType)) selectCount++;
      map.set(fieldId, fi);
    }
    // The title is `name`, or a field of subType `title` (the host makes it the title alike).
    const titled = map.has('name') || [...map.values()].some((f) => f.subType === 'title');
    const lacking = ['id', 'name'].filter((f) => (f === 'name' ? !titled : !map.has(f)));
    if (lacking.length) idName.push(`${typeId} has no ${lacking.map((f) => `\`${f}\``).join(' and ')} field`);
  }
  selectCount += optionDropped.length;

  const notes = notesReason(read.warnings);
  if (fieldDropped.length)
    ctx.fail('schema.field', {
      reason: `left out (the service would not sync it): ${list(fieldDropped.map(formatWarning))}`,
      exchange: ex,
    });
  else if (fieldWarnings.length) ctx.warn('schema.field', { reason: list(fieldWarnings), exchange: ex });
  else ctx.pass('schema.field', notes ? { reason: notes } : {});
  ctx.expect('schema.id-name', list(idName), { exchange: ex });
  if (selectCount === 0) ctx.skip('schema.options', { reason: 'no select or workflow fields' });
  else ctx.expect('schema.options', list(optionDropped.map(formatWarning)), { exchange: ex });

  if (relationCount === 0) {
    for (const id of [
      'schema.relation-shape',
      'schema.relation-target-type',
      'schema.relation-target-field',
      'schema.relation-declared-once',
    ] as const) {
      ctx.skip(id, { reason: 'no relation fields' });
    }
    return info;
  }
  ctx.expect('schema.relation-shape', list(relationDropped.map(formatWarning)), { exchange: ex });

  // Native relations point at the workspace's users (matched by e.g. email), not at a synced type.
  const relations: { typeId: string; fieldId: string; rel: RelationInfo }[] = [];
  for (const [typeId, fields] of info) {
    for (const field of fields.values())
      if (field.relation && !field.relation.native)
        relations.push({ typeId, fieldId: field.id, rel: field.relation });
  }
  const badTargets = relations
    .filter(({ rel }) => !configured.includes(rel.targetType))
    .map(
      ({ typeId, fieldId, rel }) => `${typeId}.${fieldId} -> '${rel.targetType}' is not a configured type`,
    );
  ctx.expect('schema.relation-target-type', list(badTargets), { exchange: ex });

  const badFields = relations
    .filter(({ rel }) => info.has(rel.targetType) && !info.get(rel.targetType)?.has(rel.targetFieldId))
    .map(
      ({ typeId, fieldId, rel }) =>
        `${typeId}.${fieldId} -> ${rel.targetType}.${rel.targetFieldId} does not exist`,
    );
  ctx.expect('schema.relation-target-field', list(badFields), { exchange: ex });

  const twice: string[] = [];
  relations.forEach((a, i) => {
    for (const b of relations.slice(i + 1)) {
      const mirrored =
        a.rel.targetType === b.typeId &&
        b.rel.targetType === a.typeId &&
        a.rel.name === b.rel.targetName &&
        a.rel.targetName === b.rel.name;
      if (mirrored)
        twice.push(
          `${a.typeId}.${a.fieldId} and ${b.typeId}.${b.fieldId} declare the same relation '${a.rel.name}' / '${a.rel.targetName}'`,
        );
    }
  });
  ctx.expect('schema.relation-declared-once', list(twice), { exchange: ex });
  return info;
}

const SELECT_SUBTYPES = new Set(['single-select', 'multi-select', 'workflow']);

/** A whole type the reader left out: `schema.types` reports it. */
const isTypeWarning = (w: ReaderWarning, types: string[]) => types.some((t) => w.where === `schema.${t}`);
/** A field left out for its relation. */
const isRelationWarning = (w: ReaderWarning) => /\brelation\b/.test(w.message);
/** A select or workflow option left out, or a workflow field without usable states. */
const isOptionWarning = (w: ReaderWarning) => /\.options\b/.test(w.where) || /\bworkflow\b/.test(w.message);

/**
 * The service sends `schema` without `filter` when the user set none. Skipped when a filter is
 * required (then the service always has a value to send).
 */
export async function checkSchemaWithoutFilter(
  ctx: Context,
  types: string[],
  requiredFilters: string[],
  account: Record<string, unknown>,
): Promise<void> {
  if (requiredFilters.length) {
    ctx.skip('schema.absent-filter', {
      reason: `required filter(s) ${requiredFilters.join(', ')}: the service always sends \`filter\``,
    });
    return;
  }
  const ex = await ctx.send(appRequests.schema(types, undefined, account));
  const problem =
    jsonAnswerProblem(ex) ?? (isPlainObject(ex.json) ? undefined : 'the schema is not a JSON object');
  ctx.expect('schema.absent-filter', problem && `without \`filter\` (no filter set): ${problem}`, {
    exchange: ex,
  });
}

/**
 * Decided after the syncs: `__syncAction` must be a text field when present, and present when the
 * app removes rows (sends `REMOVE`): without it the service applies no removal. An app that only
 * sets rows needs none; rows that carry `SET` without the field only warn.
 */
export function checkSyncActionField(
  ctx: Context,
  schema: SchemaInfo,
  removeTypes: ReadonlySet<string>,
  actionTypes: ReadonlySet<string> = removeTypes,
): void {
  const wrongType: string[] = [];
  const missingWithRemove: string[] = [];
  const missingWithSet: string[] = [];
  for (const [typeId, fields] of schema) {
    const field = fields.get(SYNC_ACTION_FIELD);
    if (field && field.type !== 'text')
      wrongType.push(`${typeId}.${SYNC_ACTION_FIELD} has type '${field.type}', expected 'text'`);
    if (!field && removeTypes.has(typeId)) missingWithRemove.push(typeId);
    else if (!field && actionTypes.has(typeId)) missingWithSet.push(typeId);
  }
  if (wrongType.length || missingWithRemove.length) {
    const parts = [...wrongType];
    if (missingWithRemove.length) {
      parts.push(
        `REMOVE rows were sent for ${missingWithRemove.join(', ')} but the schema has no \`${SYNC_ACTION_FIELD}\` field: the service would not remove them`,
      );
    }
    ctx.fail('schema.sync-action', { reason: parts.join('; ') });
  } else if (missingWithSet.length) {
    ctx.warn('schema.sync-action', {
      reason: `rows of ${missingWithSet.join(', ')} carry \`${SYNC_ACTION_FIELD}\` but the schema has no such field (needed once the app removes rows)`,
    });
  } else {
    ctx.pass('schema.sync-action');
  }
}
