import type { CheckGroup } from './types.js';

interface CatalogEntry {
  group: CheckGroup;
  title: string;
}

const entries = {
  'descriptor.response': ['descriptor', 'GET / answers 200 with JSON'],
  'descriptor.shape': ['descriptor', 'descriptor matches the protocol shape'],
  'descriptor.recommended': ['descriptor', '`website` and `responsibleFor` are present'],
  'descriptor.sources': ['descriptor', '`sources` is an empty array'],
  'descriptor.responsible-for': ['descriptor', '`responsibleFor` names what the app does'],
  'descriptor.auth-ids-unique': ['descriptor', 'authentication ids are unique'],
  'descriptor.auth-oauth-once': ['descriptor', 'at most one `oauth` and one `oauth2` authentication'],
  'descriptor.auth-none-fields': ['descriptor', 'authentication `none` has no fields'],
  'descriptor.auth-link-value': ['descriptor', 'link fields carry `value`'],
  'descriptor.auth-editor-mode': ['descriptor', 'highlightText fields carry `editorMode`'],
  'descriptor.actions': ['descriptor', 'external-action apps list `actions`'],
  'descriptor.action-ids-unique': ['descriptor', 'action ids are unique'],
  'descriptor.action-arg-ids-unique': ['descriptor', 'argument ids are unique per action'],

  'logo.response': ['logo', 'GET /logo answers an SVG, 204 or a redirect; a 200 is SVG'],

  'validate.account': ['validate', 'the given account validates: 200 {name}'],
  'validate.invalid-account': ['validate', 'an invalid account is refused: 401 {message}'],
  'validate.empty-fields': ['validate', 'empty `fields` are refused in time: 4xx {message}'],
  'validate.partial-fields': ['validate', 'partial `fields` are refused in time: 4xx {message}'],
  'validate.stored-account': ['validate', 'the stored account with system keys validates: 200 {name}'],

  'config.response': ['config', 'config answers 200 with JSON'],
  'config.shape': ['config', 'config matches the protocol shape'],
  'config.no-account': ['config', 'config without `account` answers in time'],
  'config.empty-account': ['config', 'config with an empty account answers in time'],
  'config.type-ids-unique': ['config', 'type ids are unique'],
  'config.filter-ids-unique': ['config', 'filter ids are unique'],
  'config.filter-editor-mode': ['config', 'highlightText filters carry `editorMode`'],
  'config.datalist-requires': ['config', '`datalist_requires` names existing filters'],

  'schema.response': ['schema', 'schema answers 200 with a JSON object'],
  'schema.types': ['schema', 'one schema per requested type'],
  'schema.field': ['schema', 'fields have a name and a valid type and subType'],
  'schema.id-name': ['schema', 'every type has the fields `id` and `name` (or a `title` subType field)'],
  'schema.relation-shape': ['schema', 'relations have a valid shape and cardinality'],
  'schema.relation-target-type': ['schema', 'relation targets are configured types'],
  'schema.relation-target-field': ['schema', 'relation target fields exist'],
  'schema.relation-declared-once': ['schema', 'each relation is declared on one side only'],
  'schema.options': ['schema', 'select and workflow options follow the service rules'],
  'schema.absent-filter': ['schema', 'schema without `filter` answers 200'],
  'schema.sync-action': ['schema', '`__syncAction` is in the schema when delta rows are sent'],

  'data.response': ['data', 'data answers 200 with JSON'],
  'data.shape': ['data', 'data pages match the protocol shape'],
  'data.items': ['data', '`items` is an array of objects'],
  'data.sync-type': ['data', '`synchronizationType` is full or delta'],
  'data.pagination': ['data', '`pagination` is valid; `nextPageConfig` given when `hasNext`'],
  'data.paging.loop': ['data', 'no `nextPageConfig` repeats'],
  'data.paging.cap': ['data', 'paging ends within the page cap'],
  'data.ids': ['data', 'every row has a string or number `id`'],
  'data.ids-unique': ['data', 'ids are unique across all pages'],
  'data.item-keys': ['data', 'row keys are schema fields'],
  'data.value-types': ['data', 'values match their field types'],
  'data.sync-action': ['data', '`__syncAction` is SET/REMOVE and in the schema'],
  'data.relations': ['data', 'relation values point at synced rows'],
  'data.resume': ['data', 'every `nextPageConfig` replayed out of order gives the same rows'],
  'data.replay': ['data', 'a page does not replay earlier pages: page time stays flat'],
  'data.absent-keys': ['data', 'a data request without its optional keys answers a page'],

  'delta.response': ['delta', 'delta sync answers 200 with JSON'],
  'delta.shape': ['delta', 'delta pages match the protocol shape'],
  'delta.items': ['delta', '`items` is an array of objects'],
  'delta.sync-type': ['delta', '`synchronizationType` is full or delta'],
  'delta.pagination': ['delta', '`pagination` is valid; `nextPageConfig` given when `hasNext`'],
  'delta.paging.loop': ['delta', 'no `nextPageConfig` repeats'],
  'delta.paging.cap': ['delta', 'paging ends within the page cap'],
  'delta.ids': ['delta', 'every SET row has a string or number `id`'],
  'delta.item-keys': ['delta', 'row keys are schema fields'],
  'delta.value-types': ['delta', 'values match their field types'],
  'delta.sync-action': ['delta', 'delta rows carry `__syncAction` SET or REMOVE'],
  'delta.remove-id': ['delta', 'REMOVE rows carry an id'],

  'drift.rows': ['drift', 'the delta loses nothing: its result equals a fresh full sync (`drift`)'],

  'datalist.response': ['datalist', 'datalist answers {items: [{title, value}]}'],
  'datalist.not-datalist': ['datalist', 'a datalist request for a non-datalist field answers in time'],
  'datalist.absent-depends-on': ['datalist', 'datalist without `dependsOn` answers in time'],

  'filter.valid': ['filter', 'the given filter is accepted by filter/validate'],
  'filter.invalid': ['filter', 'an invalid filter is refused: 400 {message}'],

  'actions.fixtures': ['actions', 'actions fixture given'],
  'actions.success': ['actions', 'a successful action answers 2xx {}'],
  'actions.failure': ['actions', 'a failed action answers an error status with {message}'],
  'actions.failure-status': ['actions', 'failures are not reported with a success status'],
  'actions.missing-args': ['actions', 'an action without its required arguments is refused: 4xx'],

  'webhooks.verify': ['webhooks', 'verify refuses a garbage event: error status {message}'],
  'webhooks.transform': ['webhooks', 'transform answers JSON for a garbage event'],
  'webhooks.pre-process': ['webhooks', 'pre-process answers JSON for a garbage event'],

  'oauth.oauth2-authorize': ['oauth', 'oauth2 authorize answers {redirect_uri}'],
  'oauth.oauth1-authorize': ['oauth', 'oauth1 authorize answers {redirect_uri, token, secret}'],

  'errors.unknown-type': ['errors', 'an unknown type gets an answer in time (404 {message} ideally)'],
  'errors.malformed-json': ['errors', 'a malformed JSON body gets an answer in time (400 {message} ideally)'],
  'errors.missing-requested-type': [
    'errors',
    'a data request without `requestedType` gets an answer in time (400 ideally)',
  ],
  'errors.unknown-action': ['errors', 'an unknown action is refused: 4xx {message}'],
  'errors.try-later-status': ['errors', '`tryLater` is never sent with a success status'],
  'errors.message-key': [
    'errors',
    'error bodies carry a string `message` (or `error`, which the service reads too)',
  ],
  'errors.json-body': ['errors', 'error bodies are JSON, never HTML'],
} as const satisfies Record<string, readonly [CheckGroup, string]>;

export type CheckId = keyof typeof entries;

/** Every check id the kit can report, with its group and title. */
export const CHECKS: Readonly<Record<CheckId, CatalogEntry>> = Object.fromEntries(
  Object.entries(entries).map(([id, [group, title]]) => [id, { group, title }]),
) as Record<CheckId, CatalogEntry>;

export const CHECK_IDS = Object.keys(entries) as CheckId[];
