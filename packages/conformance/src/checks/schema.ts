import { appRequests } from '@weft/sync-engine';
import { relation as relationSchema, SYNC_ACTION_FIELD, schemaField } from '@weft/core/protocol';
import { type Context, formatIssues, jsonAnswerProblem } from '../context.js';
import { isPlainObject, show } from '../util.js';

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

export async function checkSchema(
  ctx: Context,
  types: string[],
  filter: Record<string, unknown>,
  account: Record<string, unknown> | undefined,
): Promise<SchemaInfo | undefined> {
  const ex = await ctx.send(appRequests.schema(types, filter, account ?? {}));
  const problem =
    jsonAnswerProblem(ex) ?? (isPlainObject(ex.json) ? undefined : 'the schema is not a JSON object');
  ctx.expect('schema.response', problem, { exchange: ex });
  if (problem || !isPlainObject(ex.json)) return undefined;
  const raw = ex.json;

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

  const info: SchemaInfo = new Map();
  const fieldProblems: string[] = [];
  const fieldWarnings: string[] = [];
  const relationProblems: string[] = [];
  const idName: string[] = [];
  const optionProblems: string[] = [];
  let selectCount = 0;
  let relationCount = 0;

  for (const typeId of types) {
    const fields = raw[typeId];
    if (!isPlainObject(fields)) continue;
    const map = new Map<string, FieldInfo>();
    info.set(typeId, map);
    for (const [fieldId, field] of Object.entries(fields)) {
      const where = `${typeId}.${fieldId}`;
      if (!isPlainObject(field)) {
        fieldProblems.push(`${where}: not an object (${show(field, 40)})`);
        continue;
      }
      const parsed = schemaField.safeParse(field);
      if (!parsed.success) {
        const own = parsed.error.issues.filter((i) => i.path[0] !== 'relation');
        if (own.length) fieldProblems.push(`${where}: ${formatIssues(own, 3)}`);
      }
      if (typeof field.id === 'string' && field.id !== fieldId) {
        fieldWarnings.push(`${where}: \`id\` is '${field.id}' but the field is keyed '${fieldId}'`);
      }
      const fi: FieldInfo = {
        id: fieldId,
        type: typeof field.type === 'string' ? field.type : undefined,
        subType: typeof field.subType === 'string' ? field.subType : undefined,
      };
      if (field.relation !== undefined) {
        relationCount++;
        const rel = relationSchema.safeParse(field.relation);
        if (rel.success) {
          fi.relation = rel.data;
          if (rel.data.kind === 'native') fi.relation.native = true;
        } else relationProblems.push(`${where}: ${formatIssues(rel.error.issues, 3)}`);
      }
      if (fi.subType && SELECT_SUBTYPES.has(fi.subType)) {
        selectCount++;
        const bad = optionsProblem(fi.subType, field.options);
        if (bad) optionProblems.push(`${where}: ${bad}`);
      }
      map.set(fieldId, fi);
    }
    const lacking = ['id', 'name'].filter((f) => !map.has(f));
    if (lacking.length) idName.push(`${typeId} has no ${lacking.map((f) => `\`${f}\``).join(' and ')} field`);
  }

  if (fieldProblems.length) ctx.fail('schema.field', { reason: list(fieldProblems), exchange: ex });
  else if (fieldWarnings.length) ctx.warn('schema.field', { reason: list(fieldWarnings), exchange: ex });
  else ctx.pass('schema.field');
  ctx.expect('schema.id-name', list(idName), { exchange: ex });
  if (selectCount === 0) ctx.skip('schema.options', { reason: 'no select or workflow fields' });
  else ctx.expect('schema.options', list(optionProblems), { exchange: ex });

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
  ctx.expect('schema.relation-shape', list(relationProblems), { exchange: ex });

  // Native relations point at the workspace's users (matched by e.g. email), not at a synced type.
  const relations: { typeId: string; fieldId: string; rel: RelationInfo }[] = [];
  for (const [typeId, fields] of info) {
    for (const field of fields.values())
      if (field.relation && !field.relation.native)
        relations.push({ typeId, fieldId: field.id, rel: field.relation });
  }
  const badTargets = relations
    .filter(({ rel }) => !types.includes(rel.targetType))
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

/**
 * The service's rules for the options of a select or workflow field: option names are non-empty
 * and unique; a workflow has exactly one `default` (where new rows start) and one `final` option.
 * No options (or an empty list) is fine: the service infers them from the data.
 */
export function optionsProblem(subType: string, options: unknown): string | undefined {
  if (options === undefined || options === null) return undefined;
  if (!Array.isArray(options)) return `\`options\` is ${show(options, 40)}, not an array`;
  if (options.length === 0) return undefined;
  const problems: string[] = [];
  const names = options.map((o) => (isPlainObject(o) ? o.name : undefined));
  const blank = names.filter((n) => typeof n !== 'string' || n.trim() === '').length;
  if (blank) problems.push(`${blank} option(s) without a name`);
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const n of names) if (typeof n === 'string') (seen.has(n) ? dup : seen).add(n);
  if (dup.size) problems.push(`duplicate option names: ${[...dup].map((d) => `'${d}'`).join(', ')}`);
  if (subType === 'workflow') {
    const count = (key: string) => options.filter((o) => isPlainObject(o) && o[key] === true).length;
    const defaults = count('default');
    const finals = count('final');
    if (defaults !== 1) problems.push(`a workflow needs exactly one \`default\` option, found ${defaults}`);
    if (finals !== 1) problems.push(`a workflow needs exactly one \`final\` option, found ${finals}`);
  }
  return problems.length ? problems.join('; ') : undefined;
}

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
 * app sent delta rows. A type that only ever answers `full` needs no `__syncAction`: a full sync
 * replaces the set, so removals happen without it.
 */
export function checkSyncActionField(
  ctx: Context,
  schema: SchemaInfo,
  deltaTypes: ReadonlySet<string>,
): void {
  const wrongType: string[] = [];
  const missingWithDelta: string[] = [];
  for (const [typeId, fields] of schema) {
    const field = fields.get(SYNC_ACTION_FIELD);
    if (field && field.type !== 'text')
      wrongType.push(`${typeId}.${SYNC_ACTION_FIELD} has type '${field.type}', expected 'text'`);
    if (!field && deltaTypes.has(typeId)) missingWithDelta.push(typeId);
  }
  if (wrongType.length || missingWithDelta.length) {
    const parts = [...wrongType];
    if (missingWithDelta.length) {
      parts.push(
        `delta rows were sent for ${missingWithDelta.join(', ')} but the schema has no \`${SYNC_ACTION_FIELD}\` field`,
      );
    }
    ctx.fail('schema.sync-action', { reason: parts.join('; ') });
  } else {
    ctx.pass('schema.sync-action');
  }
}
