import type { AppDefinition } from '../define/app.js';
import type { InputField } from '../define/inputs.js';
import { type SchemaFields, titleCase } from '../define/schema-fields.js';
import { SYNC_ACTION_FIELD } from '../protocol/index.js';
import { AppDefinitionError, type DefinitionProblem } from './app-definition-error.js';
import { definitionShape } from './definition-shape.js';

/**
 * Checks a whole app definition once, at start-up, and throws one `AppDefinitionError` listing
 * every problem with its path. Runs the shape check first, then the cross-references no shape
 * can express (relation targets, datalist handlers, duplicate declarations).
 */
export function checkDefinition(app: AppDefinition): void {
  const problems: DefinitionProblem[] = [];
  const shape = definitionShape.safeParse(app);
  if (!shape.success) {
    for (const issue of shape.error.issues) {
      problems.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  checkAuthentication(app, problems);
  checkSync(app, problems);
  checkActions(app, problems);
  if (!app.sync && !app.actions) {
    problems.push({
      path: '(app)',
      message: 'defines neither `sync` nor `actions`: the app would do nothing',
    });
  }
  if (problems.length > 0) throw new AppDefinitionError(dedupe(problems));
}

function checkAuthentication(app: AppDefinition, problems: DefinitionProblem[]): void {
  if (!Array.isArray(app.authentication)) return;
  const seen = new Map<string, number>();
  let oauth1 = 0;
  let oauth2 = 0;
  app.authentication.forEach((auth, index) => {
    if (!auth || typeof auth !== 'object') return;
    const path = `authentication[${index}]`;
    const previous = seen.get(auth.id);
    if (previous !== undefined) {
      problems.push({
        path: `${path}.id`,
        message: `"${auth.id}" is also the id of authentication[${previous}]`,
      });
    }
    seen.set(auth.id, index);
    if (auth.kind === 'oauth1') oauth1 += 1;
    if (auth.kind === 'oauth2') oauth2 += 1;
    if (auth.kind === 'fields' && ['none', 'oauth', 'oauth2'].includes(auth.id)) {
      problems.push({
        path: `${path}.id`,
        message: `"${auth.id}" is reserved; use auth.none(), auth.oauth1() or auth.oauth2()`,
      });
    }
    if (auth.kind === 'none' && auth.fields.length > 0) {
      problems.push({ path: `${path}.fields`, message: 'an authentication with id "none" has no fields' });
    }
    for (const [id, field] of Object.entries<InputField<unknown>>(auth.inputs ?? {})) {
      checkInput(`${path}.fields.${id}`, field, problems);
    }
  });
  if (oauth1 > 1)
    problems.push({ path: 'authentication', message: 'at most one OAuth 1 authentication is supported' });
  if (oauth2 > 1)
    problems.push({ path: 'authentication', message: 'at most one OAuth 2 authentication is supported' });
}

function checkInput(
  path: string,
  field: { type?: string; value?: string; editorMode?: string },
  problems: DefinitionProblem[],
) {
  if (field.type === 'link' && !field.value) problems.push({ path, message: 'a link field needs `url`' });
  if (field.type === 'highlightText' && !field.editorMode) {
    problems.push({ path, message: 'a highlightText field needs `editorMode` (json or sql)' });
  }
}

function checkSync(app: AppDefinition, problems: DefinitionProblem[]): void {
  const sync = app.sync;
  if (!sync || typeof sync !== 'object') return;
  const dynamicFilters = typeof sync.accountFilters === 'function';
  checkFilterDefinitions(sync.filters ?? {}, sync.datalists ?? {}, problems, {
    prefix: 'sync.filters',
    // Handlers of filters that exist only for some accounts cannot be matched at start-up.
    orphanHandlers: !dynamicFilters,
  });
  const types = (sync.types ?? {}) as Record<string, unknown>;
  if (!types || typeof types !== 'object') return;
  if (Object.keys(types).length === 0 && typeof sync.accountTypes !== 'function')
    problems.push({ path: 'sync.types', message: 'defines no type (and there is no `accountTypes`)' });
  checkTypeDefinitions(types, problems, { prefix: 'sync.types' });
}

type TypeLike = { fields?: SchemaFields } | undefined;

/**
 * Checks synced type definitions: `id` and `name` fields, the reserved `__syncAction`, select and
 * workflow options, relation targets, relations declared twice. Shared by the start-up check and
 * the check of what `accountTypes` returns. `targets` are further types relations may point at.
 */
export function checkTypeDefinitions(
  definitions: Record<string, unknown>,
  problems: DefinitionProblem[],
  options: { prefix: string; targets?: Record<string, TypeLike> },
): void {
  const types = definitions as Record<string, TypeLike>;
  const targets: Record<string, TypeLike> = { ...options.targets, ...types };
  const relations: Array<{
    path: string;
    from: string;
    field: string;
    targetType: string;
    name: string;
    targetName: string;
  }> = [];
  for (const [typeId, type] of Object.entries(types)) {
    const fields = type?.fields;
    if (!fields || typeof fields !== 'object') continue;
    const path = `${options.prefix}.${typeId}.fields`;
    if (!fields.id) problems.push({ path, message: 'every type needs an `id` field (field.id())' });
    else if (fields.id.spec?.type !== 'id')
      problems.push({ path: `${path}.id`, message: 'must be field.id()' });
    if (!fields.name) problems.push({ path, message: 'every type needs a `name` field' });
    if (SYNC_ACTION_FIELD in fields) {
      problems.push({
        path: `${path}.${SYNC_ACTION_FIELD}`,
        message: 'is reserved; set `delta: true` and weft adds it',
      });
    }
    for (const [fieldId, field] of Object.entries(fields)) {
      const spec = field?.spec;
      if (!spec || typeof spec !== 'object') continue;
      checkOptions(`${path}.${fieldId}.options`, spec.subType, spec.options, problems);
      const relation = spec.relation;
      if (!relation || typeof relation !== 'object') continue;
      // A native relation points at the workspace's own type (its users), not at a synced one.
      if (relation.kind === 'native') continue;
      const relationPath = `${path}.${fieldId}.relation`;
      const target = targets[relation.targetType];
      if (!target) {
        problems.push({
          path: relationPath,
          message: `targets type "${relation.targetType}", which is not defined`,
        });
        continue;
      }
      if (target.fields && !(relation.targetFieldId in target.fields)) {
        problems.push({
          path: relationPath,
          message: `targetFieldId "${relation.targetFieldId}" is not a field of type "${relation.targetType}"`,
        });
      }
      relations.push({
        path: relationPath,
        from: typeId,
        field: fieldId,
        targetType: relation.targetType,
        name: relation.name || spec.name || titleCase(fieldId),
        targetName: relation.targetName,
      });
    }
  }
  // A relation declared on both sides would create it twice in the service.
  for (const a of relations) {
    for (const b of relations) {
      if (a === b || a.from > b.from || (a.from === b.from && a.field >= b.field)) continue;
      if (
        a.from === b.targetType &&
        b.from === a.targetType &&
        same(a.targetName, b.name) &&
        same(b.targetName, a.name)
      ) {
        problems.push({
          path: b.path,
          message: `declares again the relation of ${a.path}; declare a relation on one side only`,
        });
      }
    }
  }
}

/**
 * The service's rules for the options of select and workflow fields: unique names, at most one
 * `default` for a single select, `final` only in a workflow, and a workflow with exactly one
 * `default` (the state of new items) and one `final` (done). Without options the service infers
 * them from the data, so none is fine.
 */
function checkOptions(path: string, subType: unknown, options: unknown, problems: DefinitionProblem[]): void {
  if (options === undefined) return;
  if (subType !== 'single-select' && subType !== 'multi-select' && subType !== 'workflow') {
    problems.push({ path, message: 'only single-select, multi-select and workflow fields have options' });
    return;
  }
  if (!Array.isArray(options)) return;
  const list = options as Array<{ name?: unknown; default?: unknown; final?: unknown }>;
  const names = new Set<string>();
  for (const option of list) {
    if (typeof option?.name !== 'string') continue;
    if (names.has(option.name)) problems.push({ path, message: `option "${option.name}" is listed twice` });
    names.add(option.name);
  }
  const defaults = list.filter((o) => o?.default === true).length;
  const finals = list.filter((o) => o?.final === true).length;
  if (subType === 'workflow') {
    if (defaults !== 1)
      problems.push({ path, message: `a workflow needs exactly one \`default\` option, found ${defaults}` });
    if (finals !== 1)
      problems.push({ path, message: `a workflow needs exactly one \`final\` option, found ${finals}` });
    return;
  }
  if (finals > 0) problems.push({ path, message: '`final` belongs to workflow options only' });
  if (subType === 'single-select' && defaults > 1)
    problems.push({ path, message: `a single select has at most one \`default\` option, found ${defaults}` });
}

/** Checks filter definitions and their datalist handlers. */
export function checkFilterDefinitions(
  filterDefinitions: Record<string, unknown>,
  datalistHandlers: Record<string, unknown>,
  problems: DefinitionProblem[],
  options: { prefix: string; orphanHandlers: boolean },
): void {
  const filters = filterDefinitions as Record<string, InputField<unknown> | undefined>;
  const datalists = datalistHandlers as Record<string, unknown>;
  for (const [id, filter] of Object.entries(filters)) {
    const path = `${options.prefix}.${id}`;
    if (!filter || typeof filter !== 'object') continue;
    checkInput(path, filter, problems);
    if (filter.type === 'password')
      problems.push({ path, message: 'password fields belong to accounts, not filters' });
    if (filter.datalist && typeof datalists[id] !== 'function') {
      problems.push({ path, message: `is a datalist filter but sync.datalists.${id} has no handler` });
    }
    if (filter.datalist && filter.type !== 'list' && filter.type !== 'multidropdown') {
      problems.push({ path, message: 'only list and multidropdown filters can have a datalist' });
    }
    for (const required of filter.datalistRequires ?? []) {
      if (!(required in filters)) {
        problems.push({ path: `${path}.dependsOn`, message: `"${required}" is not a filter of this app` });
      }
    }
  }
  if (!options.orphanHandlers) return;
  for (const id of Object.keys(datalists)) {
    if (!filters[id]?.datalist) {
      problems.push({
        path: `sync.datalists.${id}`,
        message: `has no matching filter with \`datalist: true\``,
      });
    }
  }
}

function checkActions(app: AppDefinition, problems: DefinitionProblem[]): void {
  const actions = app.actions as Record<string, { args?: Record<string, unknown> }> | undefined;
  if (!actions || typeof actions !== 'object') return;
  if (Object.keys(actions).length === 0) problems.push({ path: 'actions', message: 'defines no action' });
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  }
  return out || '(app)';
}

export function dedupe(problems: DefinitionProblem[]): DefinitionProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function same(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}
