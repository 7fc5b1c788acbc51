import { appRequests, readDescriptor } from '@weft/sync-engine';
import { type Context, jsonAnswerProblem } from '../context.js';
import { AppUnreachableError } from '../errors.js';
import { TIME_LIMIT_HEADER } from '../http.js';
import { isPlainObject, show } from '../util.js';
import { judgeRead, notesReason } from './read-verdict.js';

/** What the rest of the run needs from GET /. */
export interface DescriptorInfo {
  raw: Record<string, unknown>;
  authentications: { id: string; fields: Record<string, unknown>[] }[];
  integration: boolean;
  automations: boolean;
  /**
   * `responsibleFor` is missing: the roles were guessed (automations when `actions` is
   * non-empty; data synchronization is then confirmed by asking `config`).
   */
  rolesGuessed: boolean;
  actions: { action: string; args: Record<string, unknown>[] }[];
  /** The app's own handler time limit in ms (`X-Weft-Time-Limit`), when announced. */
  timeLimitMs?: number;
}

/** Keys the service does not insist on: the reader takes a descriptor without them. */
const RECOMMENDED = ['website', 'responsibleFor'] as const;

function duplicates(values: string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const v of values) (seen.has(v) ? dup : seen).add(v);
  return [...dup];
}

function objects(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

export async function checkDescriptor(ctx: Context): Promise<DescriptorInfo | undefined> {
  const ex = await ctx.send(appRequests.descriptor());
  if (ex.unreachable) throw new AppUnreachableError(ctx.baseUrl, ex.unreachable);
  const problem =
    jsonAnswerProblem(ex) ?? (isPlainObject(ex.json) ? undefined : 'the descriptor is not a JSON object');
  ctx.expect('descriptor.response', problem, { exchange: ex });
  if (problem || !isPlainObject(ex.json)) return undefined;
  const raw = ex.json;

  // Judged with the engine's reader, as the host reads it: it refuses only what the service
  // insists on, and takes a descriptor without `website` or `responsibleFor`.
  const read = readDescriptor(raw);
  judgeRead(ctx, 'descriptor.shape', read, { exchange: ex });
  const missing = RECOMMENDED.filter((key) => raw[key] === undefined);
  const recommended = notesReason(
    read.warnings.filter((w) => missing.some((k) => w.where === `descriptor.${k}`)),
  );
  ctx.pass('descriptor.recommended', recommended ? { reason: recommended } : {});
  if (!Array.isArray(raw.sources))
    ctx.fail('descriptor.sources', {
      reason: `\`sources\` must be an empty array, got ${show(raw.sources)}`,
      exchange: ex,
    });
  else if (raw.sources.length > 0)
    ctx.warn('descriptor.sources', {
      reason: `\`sources\` is not empty (${show(raw.sources, 60)}): the service ignores it`,
      exchange: ex,
    });
  else ctx.pass('descriptor.sources');

  // A refused descriptor is still looked into, from its raw keys, to report more.
  const roles = read.ok
    ? read.value.responsibleFor
    : isPlainObject(raw.responsibleFor)
      ? raw.responsibleFor
      : undefined;
  const rolesGuessed = roles === undefined;
  const responsible: Record<string, unknown> = roles ?? {};
  const declaredActions = Array.isArray(raw.actions) && raw.actions.length > 0;
  // Without `responsibleFor` an app with actions is taken as an external-action app, and every
  // app as a possible integration app (run.ts asks `config` to confirm).
  const integration = rolesGuessed || responsible.dataSynchronization === true;
  const automations = rolesGuessed ? declaredActions : responsible.automations === true;
  if (rolesGuessed) {
    ctx.skip('descriptor.responsible-for', {
      reason: declaredActions
        ? '`responsibleFor` missing: checked as an external-action app (`actions` is not empty), and as an integration app when `config` answers'
        : '`responsibleFor` missing: checked as an integration app',
    });
  } else if (!integration && !automations && responsible.dataImport === true) {
    ctx.pass('descriptor.responsible-for', {
      reason: 'data import only (`responsibleFor.dataImport`): the kit does not check that role',
    });
  } else if (!integration && !automations) {
    ctx.warn('descriptor.responsible-for', {
      reason:
        'neither `responsibleFor.dataSynchronization` nor `responsibleFor.automations` is true: the service will not use the app',
      exchange: ex,
    });
  } else {
    const roles = [
      integration && 'data synchronization (config, schema, data expected)',
      automations && 'automations (execute expected)',
    ];
    ctx.pass('descriptor.responsible-for', { reason: roles.filter(Boolean).join('; ') });
  }

  const auths = objects(raw.authentication);
  const authIds = auths.map((a) => String(a.id));
  const dupAuth = duplicates(authIds);
  ctx.expect(
    'descriptor.auth-ids-unique',
    dupAuth.length ? `duplicate authentication ids: ${dupAuth.join(', ')}` : undefined,
  );

  const oauthCounts = ['oauth', 'oauth2'].map((id) => [id, authIds.filter((a) => a === id).length] as const);
  const tooMany = oauthCounts.filter(([, n]) => n > 1).map(([id, n]) => `${n} × ${id}`);
  ctx.expect(
    'descriptor.auth-oauth-once',
    tooMany.length ? `only one per OAuth version is supported: ${tooMany.join(', ')}` : undefined,
  );

  const none = auths.find((a) => a.id === 'none');
  if (!none) ctx.skip('descriptor.auth-none-fields', { reason: 'no `none` authentication' });
  else
    ctx.expect(
      'descriptor.auth-none-fields',
      Array.isArray(none.fields) && none.fields.length > 0
        ? `\`none\` declares ${none.fields.length} field(s); omit \`fields\``
        : undefined,
    );

  const fields = auths.flatMap((a) => objects(a.fields).map((f) => ({ auth: String(a.id), field: f })));
  const links = fields.filter(({ field }) => field.type === 'link');
  const badLinks = links.filter(({ field }) => typeof field.value !== 'string' || field.value.length === 0);
  if (links.length === 0) ctx.skip('descriptor.auth-link-value', { reason: 'no link fields' });
  else
    ctx.expect(
      'descriptor.auth-link-value',
      badLinks.length
        ? `link fields without \`value\`: ${badLinks.map((l) => `${l.auth}.${String(l.field.id)}`).join(', ')}`
        : undefined,
    );

  const highlights = fields.filter(({ field }) => field.type === 'highlightText');
  const badHighlights = highlights.filter(
    ({ field }) => field.editorMode !== 'json' && field.editorMode !== 'sql',
  );
  if (highlights.length === 0) ctx.skip('descriptor.auth-editor-mode', { reason: 'no highlightText fields' });
  else
    ctx.expect(
      'descriptor.auth-editor-mode',
      badHighlights.length
        ? `highlightText fields without editorMode json|sql: ${badHighlights.map((h) => `${h.auth}.${String(h.field.id)}`).join(', ')}`
        : undefined,
    );

  const actions = objects(raw.actions);
  if (!automations) {
    ctx.skip('descriptor.actions', { reason: 'not an external-action app' });
  } else if (!Array.isArray(raw.actions)) {
    ctx.fail('descriptor.actions', {
      reason: '`responsibleFor.automations` is true but `actions` is missing',
      exchange: ex,
    });
  } else if (raw.actions.length === 0) {
    ctx.warn('descriptor.actions', { reason: '`actions` is empty: automations have nothing to run' });
  } else {
    ctx.pass('descriptor.actions', { reason: `${actions.length} action(s)` });
  }
  const dupActions = duplicates(actions.map((a) => String(a.action)));
  ctx.expect(
    'descriptor.action-ids-unique',
    dupActions.length ? `duplicate action ids: ${dupActions.join(', ')}` : undefined,
  );
  const dupArgs = actions.flatMap((a) =>
    duplicates(objects(a.args).map((arg) => String(arg.id))).map((id) => `${String(a.action)}.${id}`),
  );
  ctx.expect(
    'descriptor.action-arg-ids-unique',
    dupArgs.length ? `duplicate argument ids: ${dupArgs.join(', ')}` : undefined,
  );

  const info: DescriptorInfo = {
    raw,
    authentications: auths.map((a) => ({ id: String(a.id), fields: objects(a.fields) })),
    integration,
    automations,
    rolesGuessed,
    actions: actions.map((a) => ({ action: String(a.action), args: objects(a.args) })),
  };
  const limit = Number(ex.headers?.[TIME_LIMIT_HEADER]);
  if (Number.isInteger(limit) && limit > 0) info.timeLimitMs = limit;
  return info;
}
