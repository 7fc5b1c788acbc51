import { SYNC_ACTION_FIELD } from '@weft/core/protocol';
import {
  type DataRequestBody,
  formatWarning,
  itemAction,
  readDataAnswer,
  readPages,
} from '@weft/sync-engine';
import type { CheckId } from '../catalog.js';
import { type Context, jsonAnswerProblem } from '../context.js';
import { type Exchange, REPLAYED_ROWS_HEADER } from '../http.js';
import type { HashMap64 } from '../store/hash-map.js';
import { isPlainObject, plural, show, stableStringify } from '../util.js';
import { HashList } from '../store/hash-list.js';
import { TypeStore } from '../store/type-store.js';
import { type PageDigest, pageDigest } from './page-digest.js';
import { judgeReplay } from './replay.js';
import type { SchemaInfo } from './schema.js';
import { judgeValue } from './values.js';

/**
 * A data page's problem as the service reads it (the engine's reader: only `items` is required),
 * with the check it belongs to; undefined when the page can be read.
 */
export function pageProblem(
  json: unknown,
): { suffix: 'items' | 'pagination' | 'shape'; problem: string } | undefined {
  const read = readDataAnswer(json);
  if (read.ok) return undefined;
  const key = read.problem.split(/[.:]/)[0];
  return { suffix: key === 'items' || key === 'pagination' ? key : 'shape', problem: read.problem };
}

export type Phase = 'data' | 'delta';
type Row = Record<string, unknown>;
type Suffix =
  | 'response'
  | 'shape'
  | 'items'
  | 'sync-type'
  | 'pagination'
  | 'paging.loop'
  | 'paging.cap'
  | 'ids'
  | 'ids-unique'
  | 'item-keys'
  | 'value-types'
  | 'sync-action'
  | 'remove-id';

const PAGE_SUFFIXES: Suffix[] = [
  'response',
  'shape',
  'items',
  'sync-type',
  'pagination',
  'paging.loop',
  'paging.cap',
];
const ROW_SUFFIXES: Record<Phase, Suffix[]> = {
  data: ['ids', 'ids-unique', 'item-keys', 'value-types', 'sync-action'],
  delta: ['ids', 'item-keys', 'value-types', 'sync-action', 'remove-id'],
};
const SCHEMA_SUFFIXES = new Set<Suffix>(['item-keys', 'value-types']);
const MAX_REASONS = 5;
/**
 * The kit asks a page the app wants retried later three times in all, after a short back-off
 * (the service waits longer; a run should not). A page the app gives no answer to is not asked
 * again: the silence is what the kit reports.
 */
export const KIT_RETRY = { attempts: 3, baseDelayMs: 200, maxDelayMs: 1000, retryUnanswered: false } as const;
/** What a page's judgement returns when paging ends there. */
const STOP = Symbol('stop');

interface Finding {
  status: 'fail' | 'warn';
  reasons: string[];
  count: number;
  ex?: Exchange;
}

/** Problems found while reading the pages of one type, emitted as one check per id at the end. */
class Findings {
  readonly map = new Map<Suffix, Finding>();
  /** Reasons recorded with a pass: what the kit assumed, as the service does. */
  readonly notes = new Map<Suffix, string>();
  add(suffix: Suffix, status: 'fail' | 'warn', reason: string, ex?: Exchange): void {
    let f = this.map.get(suffix);
    if (!f) {
      f = { status, reasons: [], count: 0 };
      this.map.set(suffix, f);
    }
    if (status === 'fail' && f.status === 'warn') {
      f.status = 'fail';
      f.reasons = [];
      f.count = 0;
      f.ex = undefined;
    } else if (status === 'warn' && f.status === 'fail') return;
    f.count++;
    if (f.reasons.length < MAX_REASONS) f.reasons.push(reason);
    if (!f.ex && ex) f.ex = ex;
  }
}

export interface SyncEnv {
  ctx: Context;
  types: string[];
  schema: SchemaInfo | undefined;
  /** the schema as read, sent with every data request as the service does (`schema`) */
  schemaAnswer?: Record<string, unknown>;
  filter: Record<string, unknown>;
  /** The account as the service sends it (system keys included). */
  account: Record<string, unknown>;
  maxPages: number;
  operationId: string;
}

export interface PhaseResult {
  typeId: string;
  phase: Phase;
  pages: number;
  /** Every page was read and paging ended normally. */
  complete: boolean;
  synchronizationType?: 'full' | 'delta';
  /** The type as the service would store it after this phase (ids as hashes, a few sample rows). */
  rows: TypeStore;
  set: number;
  removed: number;
  /** At least one page answered `synchronizationType: "delta"`. */
  sawDelta: boolean;
  /** At least one row carried `__syncAction: "REMOVE"`. */
  sawRemove: boolean;
  /** At least one row carried `__syncAction` (SET or REMOVE). */
  sawAction: boolean;
  /** Relation field id -> referenced ids (data phase only), as hashes plus the first few as text. */
  relationRefs: Map<string, RelationRefs>;
  /** Data phase: every page reached through a `nextPageConfig`, with digests of its rows. */
  resumable: PageDigest[];
}

/** The references of one relation field: every one hashed, the first few kept as text for examples. */
export interface RelationRefs {
  hashes: HashList;
  examples: string[];
}
/** References kept as text per relation field, to name a few dangling ones. */
const EXAMPLE_REFS = 1000;

/** Fields of `typeId` that relations of other types point at, other than `id`. */
export function indexedFields(schema: SchemaInfo | undefined, typeId: string): string[] {
  const out = new Set<string>();
  for (const fields of schema?.values() ?? [])
    for (const f of fields.values())
      if (
        f.relation &&
        !f.relation.native &&
        f.relation.targetType === typeId &&
        f.relation.targetFieldId !== 'id'
      )
        out.add(f.relation.targetFieldId);
  return [...out];
}

/** The body of a data request, as the service sends it. */
export function dataRequest(
  env: SyncEnv,
  typeId: string,
  pagination: Record<string, unknown> | null,
  lastSynchronizedAt: string | null,
): DataRequestBody {
  return {
    requestedType: typeId,
    types: env.types,
    filter: env.filter,
    account: env.account,
    pagination,
    lastSynchronizedAt,
    operationId: env.operationId,
    ...(env.schemaAnswer ? { schema: env.schemaAnswer } : {}),
  };
}

function rowLabel(item: Row, page: number, index: number): string {
  return item.id !== undefined && item.id !== null
    ? `row ${show(item.id, 40)}`
    : `row #${index + 1} of page ${page}`;
}

/** Reads every page of one type as the service would and applies the rows to `store`. */
export async function syncType(
  env: SyncEnv,
  typeId: string,
  phase: Phase,
  store: TypeStore,
  lastSynchronizedAt: string | null,
): Promise<PhaseResult> {
  const { ctx } = env;
  const findings = new Findings();
  const fields = env.schema?.get(typeId);
  const result: PhaseResult = {
    typeId,
    phase,
    pages: 0,
    complete: false,
    rows: store,
    set: 0,
    removed: 0,
    sawDelta: false,
    sawRemove: false,
    sawAction: false,
    relationRefs: new Map(),
    resumable: [],
  };
  // Native relations point at the workspace's users, not at synced rows: no coverage for them.
  const relationFields = fields ? [...fields.values()].filter((f) => f.relation && !f.relation.native) : [];
  if (phase === 'data')
    for (const f of relationFields) result.relationRefs.set(f.id, { hashes: new HashList(), examples: [] });
  // Per page: the time to answer and the rows the app says it replayed (core apps), for `data.replay`.
  const pageMs: number[] = [];
  const replayed: (number | undefined)[] = [];
  let largestPage = 0;
  const seenConfigs = new Map<string, number>();
  const unknownKeys = new Set<string>();
  // A warning about a value is the same for every row: reported once per field.
  const warnedFields = new Set<string>();
  let answered = false;
  let received = false;
  let itemCount = 0;
  let replaced: TypeStore | undefined;

  /**
   * Judges one answer of the paging loop and applies its rows. Returns the `nextPageConfig` to
   * follow, or STOP when paging ends here (last page, or a problem the service would not get past).
   */
  const judgePage = (ex: Exchange, page: number, pagination: unknown): unknown => {
    const problem = jsonAnswerProblem(ex);
    if (problem) {
      findings.add('response', 'fail', `page ${page}: ${problem}`, ex);
      return STOP;
    }
    answered = true;
    const json = ex.json;
    if (!isPlainObject(json)) {
      findings.add('shape', 'fail', `page ${page}: the body is not a JSON object: ${show(json)}`, ex);
      return STOP;
    }
    if (json.tryLater === true) {
      findings.add(
        'response',
        'fail',
        `page ${page}: \`tryLater\` sent with HTTP ${ex.status}; the service reads it as data`,
        ex,
      );
      return STOP;
    }
    result.pages = page;
    pageMs.push(ex.ms);
    const replayHeader = Number(ex.headers?.[REPLAYED_ROWS_HEADER]);
    replayed.push(Number.isFinite(replayHeader) ? replayHeader : undefined);
    if (Array.isArray(json.items)) largestPage = Math.max(largestPage, json.items.length);

    const read = readDataAnswer(json);
    if (!read.ok) {
      const bad = pageProblem(json);
      if (bad?.suffix === 'items' && !Array.isArray(json.items))
        findings.add('items', 'fail', `page ${page}: \`items\` is ${show(json.items)}, not an array`, ex);
      else if (bad && bad.suffix !== 'items')
        findings.add(bad.suffix, 'fail', `page ${page}: ${bad.problem}`, ex);
    }
    // The rows as the service reads them (the reader takes `items: null` as none), or, when the
    // page could not be read for another reason, the array as sent, to judge its rows too.
    const rows: unknown[] | undefined = read.ok
      ? read.value.items
      : Array.isArray(json.items)
        ? json.items
        : undefined;
    if (!rows) {
      if (!findings.map.has('items')) findings.add('items', 'fail', `page ${page}: \`items\` is missing`, ex);
      return STOP;
    }
    const itemsNote = read.warnings.find((w) => w.where === 'data.items');
    if (itemsNote && !findings.notes.has('items'))
      findings.notes.set('items', `page ${page}: ${formatWarning(itemsNote)}, as the service does`);

    if (json.pagination === undefined || json.pagination === null)
      findings.notes.set(
        'pagination',
        `page ${page} has no \`pagination\`: taken as the last page, as the service does`,
      );
    if (json.synchronizationType === undefined) {
      // Said once, on the first page without it: the later ones are the same case.
      if (!findings.notes.has('sync-type'))
        findings.notes.set(
          'sync-type',
          'no `synchronizationType`: taken as a full sync, as the service does',
        );
    } else if (json.synchronizationType !== 'full' && json.synchronizationType !== 'delta')
      // The reader takes it as full; an app that meant delta would lose the rows it did not send.
      findings.add(
        'sync-type',
        'warn',
        `page ${page}: \`synchronizationType\` is ${show(json.synchronizationType, 30)}: read as 'full', as the service does`,
        ex,
      );
    const pageType =
      read.ok && json.synchronizationType !== undefined ? read.value.synchronizationType : undefined;
    if (phase === 'data' && pagination !== null) result.resumable.push(pageDigest(pagination, rows, page));
    if (pageType) {
      if (result.synchronizationType && result.synchronizationType !== pageType) {
        findings.add(
          'sync-type',
          'warn',
          `page ${page} says '${pageType}' but page 1 said '${result.synchronizationType}'`,
          ex,
        );
      }
      result.synchronizationType ??= pageType;
      if (pageType === 'delta') result.sawDelta = true;
      if (pageType === 'delta' && phase === 'data' && lastSynchronizedAt === null) {
        findings.add(
          'sync-type',
          'warn',
          `page ${page}: 'delta' answered to a first sync (lastSynchronizedAt null)`,
          ex,
        );
      }
    }
    const isDelta = (result.synchronizationType ?? pageType) === 'delta';
    if (phase === 'delta' && page === 1 && !isDelta) {
      // A `full` answer to a delta request replaces the stored set.
      replaced = new TypeStore(store.indexedFields);
    }
    const target = replaced ?? store;

    received = true;
    rows.forEach((raw, index) => {
      itemCount++;
      if (!isPlainObject(raw)) {
        findings.add(
          'items',
          'fail',
          `page ${page}: item #${index + 1} is ${show(raw, 40)}, not an object`,
          ex,
        );
        return;
      }
      const item = raw;
      const label = rowLabel(item, page, index);
      const hasAction = Object.hasOwn(item, SYNC_ACTION_FIELD);
      const action = item[SYNC_ACTION_FIELD];
      if (hasAction) {
        result.sawAction = true;
        if (action === 'REMOVE') result.sawRemove = true;
        if (fields && !fields.has(SYNC_ACTION_FIELD)) {
          // Required only from apps that remove rows: without the field the service applies no
          // REMOVE; a SET row's `__syncAction` it merely does not keep.
          findings.add(
            'sync-action',
            action === 'REMOVE' ? 'fail' : 'warn',
            action === 'REMOVE'
              ? `${label} is a REMOVE row but the schema has no \`${SYNC_ACTION_FIELD}\` field: the service would not remove it`
              : `${label} carries \`${SYNC_ACTION_FIELD}\` but the schema has no such field`,
            ex,
          );
        }
        if (action !== 'SET' && action !== 'REMOVE') {
          findings.add(
            'sync-action',
            'fail',
            `${label}: \`${SYNC_ACTION_FIELD}\` is ${show(action, 30)}, expected 'SET' or 'REMOVE'`,
            ex,
          );
        }
      } else if (phase === 'delta' && isDelta) {
        findings.add(
          'sync-action',
          'warn',
          `${label}: delta row without \`${SYNC_ACTION_FIELD}\` (taken as SET)`,
          ex,
        );
      }
      const isRemove = action === 'REMOVE';
      if (isRemove && !isDelta && !findings.notes.has('sync-action'))
        findings.notes.set(
          'sync-action',
          `${label}: a REMOVE row in a full answer; it is removed, as a row not sent would be`,
        );
      const id = item.id;
      if (id === undefined || id === null) {
        if (isRemove)
          findings.add(
            phase === 'delta' ? 'remove-id' : 'ids',
            'fail',
            `${label}: REMOVE row without an id`,
            ex,
          );
        else findings.add('ids', 'fail', `${label} has no \`id\``, ex);
        return;
      }
      if (typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id))) {
        findings.add('ids', 'fail', `${label}: \`id\` must be a string or number`, ex);
        return;
      }
      const key = String(id);
      // The store starts empty in the data phase: an id already there came on an earlier page.
      const first = phase === 'data' ? target.pageOf(key) : undefined;
      if (first !== undefined) {
        findings.add(
          'ids-unique',
          'fail',
          `id ${show(id, 40)} appears on page ${first} and again on page ${page}`,
          ex,
        );
      }
      if (fields) {
        for (const [fieldId, value] of Object.entries(item)) {
          if (fieldId === SYNC_ACTION_FIELD) continue;
          const field = fields.get(fieldId);
          if (!field) {
            if (!unknownKeys.has(fieldId)) {
              unknownKeys.add(fieldId);
              findings.add(
                'item-keys',
                'warn',
                `${label} has key \`${fieldId}\`, which is not a field of the schema`,
                ex,
              );
            }
            continue;
          }
          if (isRemove) continue;
          const bad = judgeValue(field, value);
          if (bad?.status === 'warn' && warnedFields.has(fieldId)) continue;
          if (bad?.status === 'warn') warnedFields.add(fieldId);
          if (bad) {
            const kind = field.subType ? `${field.type}/${field.subType}` : field.type;
            findings.add(
              'value-types',
              bad.status,
              `${label}, field \`${fieldId}\` (${kind}): ${bad.reason}`,
              ex,
            );
          }
        }
        if (phase === 'data' && !isRemove) {
          for (const f of relationFields) {
            const value = item[f.id];
            const refs = result.relationRefs.get(f.id)!;
            const add = (ref: string) => {
              refs.hashes.push(ref);
              if (refs.examples.length < EXAMPLE_REFS) refs.examples.push(ref);
            };
            if (Array.isArray(value)) for (const v of value) add(String(v));
            else if (value !== null && value !== undefined && typeof value !== 'object') add(String(value));
          }
        }
      }
      // Applied as the service applies it: REMOVE removes in full and delta answers alike.
      const applied = itemAction(item);
      if (applied.action === 'remove') {
        if (target.delete(applied.id)) result.removed++;
      } else if (applied.action === 'set') {
        // Only the first page an id came on is kept: a later SET must not hide a duplicate.
        target.set(applied.id, applied.row, first ?? page, isDelta);
        result.set++;
      }
    });
    ctx.progress({ kind: 'sync', phase, typeId, page, items: itemCount, done: false });

    const pag = json.pagination;
    if (!isPlainObject(pag) || pag.hasNext !== true) {
      result.complete = true;
      return STOP;
    }
    const next = pag.nextPageConfig;
    if (next === undefined || next === null) {
      findings.add(
        'pagination',
        'fail',
        `page ${page}: \`hasNext\` is true but \`nextPageConfig\` is ${show(next)}; the service would start again from page 1`,
        ex,
      );
      return STOP;
    }
    const fingerprint = stableStringify(next);
    const earlier = seenConfigs.get(fingerprint);
    if (earlier !== undefined) {
      findings.add(
        'paging.loop',
        'fail',
        `page ${page} returned the same \`nextPageConfig\` as page ${earlier} (${show(next, 60)}): paging would never end`,
        ex,
      );
      return STOP;
    }
    seenConfigs.set(fingerprint, page);
    if (page >= env.maxPages) {
      findings.add(
        'paging.cap',
        'fail',
        `paging did not end after ${plural(env.maxPages, 'page')} (last nextPageConfig ${show(next, 60)})`,
        ex,
      );
      return STOP;
    }
    return next;
  };

  // The sync engine runs the paging loop (requests, tryLater retries, following `nextPageConfig`)
  // and the kit judges every answer it gets. An answer the service could not read ends the
  // engine's loop; the kit reads on from the `nextPageConfig` it found, to report more.
  let from: { page: number; pagination: Record<string, unknown> | null } | undefined;
  reading: for (;;) {
    for await (const event of readPages(ctx.client, {
      type: typeId,
      types: env.types,
      filter: env.filter,
      account: env.account,
      lastSynchronizedAt,
      operationId: env.operationId,
      ...(env.schemaAnswer ? { schema: env.schemaAnswer } : {}),
      retry: KIT_RETRY,
      ...(from ? { resumeFrom: from } : {}),
    })) {
      if (event.kind === 'retry') continue;
      if (event.kind === 'done') break reading;
      if (event.kind === 'failed' && event.error.tryLater) {
        findings.add(
          'response',
          'warn',
          `page ${event.page}: the app asked to try later ${KIT_RETRY.attempts} times; the service would retry this page later`,
          event.exchange,
        );
        break reading;
      }
      const next = judgePage(event.exchange, event.page, event.pagination);
      if (next === STOP) break reading;
      if (event.kind === 'failed') {
        from = { page: event.page + 1, pagination: next as Record<string, unknown> };
        continue reading;
      }
    }
    break;
  }

  if (replaced) store.replaceWith(replaced);
  if (phase === 'data' && answered) {
    const verdict = judgeReplay(typeId, pageMs, replayed, largestPage);
    const input = { subject: typeId, reason: verdict.reason };
    if (verdict.status === 'warn') ctx.warn('data.replay', input);
    else if (verdict.status === 'pass') ctx.pass('data.replay', input);
    else ctx.skip('data.replay', input);
  }
  ctx.progress({ kind: 'sync', phase, typeId, page: result.pages, items: itemCount, done: true });

  for (const suffix of [...PAGE_SUFFIXES, ...ROW_SUFFIXES[phase]]) {
    const id = `${phase}.${suffix}` as CheckId;
    const f = findings.map.get(suffix);
    if (f) {
      const more = f.count > f.reasons.length ? `; and ${f.count - f.reasons.length} more` : '';
      const input: { subject: string; reason: string; exchange?: Exchange } = {
        subject: typeId,
        reason: f.reasons.join('; ') + more,
      };
      if (f.ex) input.exchange = f.ex;
      ctx.record(id, f.status, input);
    } else if (suffix !== 'response' && !answered) {
      ctx.skip(id, { subject: typeId, reason: 'no page was received' });
    } else if (ROW_SUFFIXES[phase].includes(suffix) && !received) {
      ctx.skip(id, { subject: typeId, reason: 'no rows were received' });
    } else if (SCHEMA_SUFFIXES.has(suffix) && !fields) {
      ctx.skip(id, { subject: typeId, reason: 'no usable schema for this type' });
    } else {
      const note = findings.notes.get(suffix);
      ctx.pass(id, note ? { subject: typeId, reason: note } : { subject: typeId });
    }
  }
  return result;
}

/** Relation coverage of the full sync: how many references point at a synced row of the target type. */
export function checkRelations(
  ctx: Context,
  schema: SchemaInfo,
  results: Map<string, PhaseResult>,
): Map<string, Record<string, { total: number; resolved: number }>> {
  const coverage = new Map<string, Record<string, { total: number; resolved: number }>>();
  const indexes = new Map<string, HashMap64>();
  const indexOf = (typeId: string, fieldId: string): HashMap64 | undefined => {
    const key = `${typeId}\u0000${fieldId}`;
    if (indexes.has(key)) return indexes.get(key);
    const set = results.get(typeId)?.rows.index(fieldId);
    if (set) indexes.set(key, set);
    return set;
  };
  for (const [typeId, result] of results) {
    const fields = schema.get(typeId);
    if (!fields || result.relationRefs.size === 0) continue;
    const perType: Record<string, { total: number; resolved: number }> = {};
    const warnings: string[] = [];
    const skipped: string[] = [];
    for (const [fieldId, refs] of result.relationRefs) {
      const rel = fields.get(fieldId)?.relation;
      if (!rel) continue;
      const target = results.get(rel.targetType);
      const index = target?.complete ? indexOf(rel.targetType, rel.targetFieldId) : undefined;
      if (!index) {
        skipped.push(
          `${fieldId} (target '${rel.targetType}' ${target ? 'was not fully synced' : 'is not among the synced types'})`,
        );
        continue;
      }
      let dangling = 0;
      refs.hashes.forEach((hi, lo) => {
        if (!index.hasHash(hi, lo)) dangling++;
      });
      const total = refs.hashes.length;
      perType[fieldId] = { total, resolved: total - dangling };
      if (dangling) {
        const examples = [...new Set(refs.examples.filter((r) => !index.has(r)))]
          .slice(0, 3)
          .map((d) => `'${d}'`)
          .join(', ');
        warnings.push(
          `${fieldId}: ${dangling} of ${total} references point at no synced ${rel.targetType}.${rel.targetFieldId}${examples ? ` (e.g. ${examples})` : ''}`,
        );
      }
    }
    coverage.set(typeId, perType);
    const covered = Object.entries(perType)
      .map(([f, c]) => `${f} ${c.resolved}/${c.total}`)
      .join(', ');
    if (warnings.length) ctx.warn('data.relations', { subject: typeId, reason: warnings.join('; ') });
    else if (Object.keys(perType).length === 0)
      ctx.skip('data.relations', { subject: typeId, reason: skipped.join('; ') });
    else ctx.pass('data.relations', { subject: typeId, reason: `resolved ${covered}` });
  }
  return coverage;
}
