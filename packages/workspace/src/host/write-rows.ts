import { type DocumentWrite, writeDocuments as storeDocuments } from '../documents/document-store.js';
import { type CreateRows, createRowsCommand } from '../entities/create-rows.js';
import { loadCatalog } from '../schema/catalog.js';
import { MAX_RUN_MESSAGE } from './run-record-limits.js';
import type { Workspace } from '../workspace.js';
import { optionId, run } from './apply-schema.js';
import {
  type Coercion,
  convertValue,
  type RelationCoercion,
  relationTargets,
  richTextOf,
} from '@weft/sync-engine';
import { collectionItems, replaceItemsCommands } from './collection-items.js';
import { deleteRowFiles, type FileFieldValue, writeFileFields } from './download-files.js';
import { entityId } from './entity-ids.js';
import { parseFileRefs } from './file-refs.js';
import type { AppResourceContext } from './resource-client.js';
import { type MappedField, type MappedType, optionNamesOf } from './schema-mapping.js';

// Writes synced rows into the workspace through its command API (so every change produces the
// workspace's own webhook deliveries): a page becomes one batch of creates (new ids) and updates
// (known ids). Relation values wait in weft_host_links until both sides are in (resolveLinks).
// A field the row does not carry is left as it is; a field it carries is set to exactly what it
// holds: a many-to-many relation or a multi-select loses the items no longer sent, a file field the files no
// longer sent (files are downloaded into the workspace's file storage, see download-files.ts).

type Json = Record<string, unknown>;

export interface WriteContext {
  workspace: Workspace;
  sourceId: string;
  runId: string;
  types: Map<string, MappedType>;
  /** enum type -> option names known to exist */
  options: Map<string, Set<string>>;
  /** the app and account, for files referenced as `app://resource?...`; without it they are not stored */
  app?: AppResourceContext;
  /** where messages about files that could not be stored go (e.g. the run's warnings) */
  warnings?: string[];
  /**
   * workspace types that held no row when this run started (its first sync of them): their rows
   * are written as creates without asking which exist first; should one exist after all (an id
   * sent on two pages, a webhook event meanwhile), the batch fails as a whole and is written again
   * after the lookup
   */
  newTypes?: ReadonlySet<string>;
  /** downloads at once per page (default 4) */
  fileConcurrency?: number;
  signal?: AbortSignal;
}

const QUERY_CHUNK = 1000;

async function query(workspace: Workspace, query: Json, params?: Json): Promise<Json[]> {
  const [result] = await workspace.execute([
    { command: 'svc.entity/query', args: { query, ...(params ? { params } : {}) } },
  ]);
  if (!result?.success) throw new Error(result ? result.error.message : 'query failed');
  return result.result as Json[];
}

/** The ids among `ids` that exist in `type`. */
export async function existingIds(workspace: Workspace, type: string, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += QUERY_CHUNK) {
    const rows = await query(
      workspace,
      {
        'q/from': type,
        'q/select': ['svc/id'],
        'q/where': ['q/in', ['svc/id'], '$ids'],
        'q/limit': 'q/no-limit',
      },
      { $ids: ids.slice(i, i + QUERY_CHUNK) },
    );
    for (const r of rows) found.add(String(r['svc/id']));
  }
  return found;
}

async function ensureOptions(ctx: WriteContext, enumType: string, names: Set<string>): Promise<void> {
  let known = ctx.options.get(enumType);
  if (!known) {
    const rows = await query(ctx.workspace, {
      'q/from': enumType,
      'q/select': ['enum/name'],
      'q/limit': 'q/no-limit',
    });
    known = new Set(rows.map((r) => String(r['enum/name'])));
    ctx.options.set(enumType, known);
  }
  const missing = [...names].filter((n) => !known.has(n));
  if (missing.length === 0) return;
  // Options the schema did not list are inferred from the data, as the service does.
  await run(
    ctx.workspace,
    missing.map((name, i) => ({
      command: 'svc.entity/create',
      args: {
        type: enumType,
        entity: { 'svc/id': optionId(enumType, name), 'enum/name': name, 'svc/rank': known.size + i },
      },
    })),
  );
  for (const n of missing) known.add(n);
}

export interface WriteResult {
  set: number;
  /** values that did not fit their field and were stored empty: `<field>` → how many */
  unfit?: Record<string, number>;
  /** values taken only by coercing them, as the service does: `<field>: <what>` → how many */
  coerced?: Record<string, number>;
  /** files downloaded, kept (same key as before), detached, and failed to download */
  files?: { downloaded: number; kept: number; removed: number; failed: number };
}

/** A row's value, and its name when the row has names of its own. */
function put(values: unknown[], names: string[] | undefined, name: string, value: unknown): void {
  values.push(value);
  names?.push(name);
}

/**
 * Writes a page's rows. With `seen` (a full sync of a type that held rows when it began), the rows
 * are first marked as sent by this run, for removeUnsent at its end.
 */
export async function writeRows(
  ctx: WriteContext,
  type: MappedType,
  items: Json[],
  options: { seen?: boolean } = {},
): Promise<WriteResult> {
  const titleName = `${type.name.slice(0, type.name.indexOf('/'))}/name`;
  // The last row of a page wins when an id repeats.
  const byId = new Map<string, Json>();
  for (const item of items) byId.set(entityId(ctx.sourceId, type.appType, String(item.id)), item);
  const ids = [...byId.keys()];
  if (ids.length === 0) return { set: 0 };
  // Before the rows: a row marked but not written (the write failed) is only kept, never lost.
  if (options.seen)
    await ctx.workspace.driver.query('INSERT INTO weft_host_seen (run_id, ids) VALUES ($1, $2::uuid[])', [
      ctx.runId,
      ids,
    ]);

  const optionNames = new Map<string, Set<string>>();
  for (const f of type.fields) {
    if (f.kind !== 'enum') continue;
    const names = new Set<string>();
    for (const item of byId.values()) for (const name of optionNamesOf(f, item[f.appId])) names.add(name);
    if (names.size > 0) optionNames.set(f.enumType, names);
  }
  for (const [enumType, names] of optionNames) await ensureOptions(ctx, enumType, names);

  // Relations by id whose targets are already stored are set with the row itself.
  const inline = new Map<string, Map<string, string>>();
  for (const f of type.fields) {
    if (f.kind !== 'relation' || f.targetFieldId !== 'id') continue;
    const target = ctx.types.get(f.targetAppType);
    if (!target) continue;
    const values = new Set<string>();
    for (const item of byId.values()) for (const v of relationTargets(f.many, item[f.appId])) values.add(v);
    const uuids = new Map([...values].map((v) => [v, entityId(ctx.sourceId, target.appType, v)]));
    const present = await existingIds(ctx.workspace, target.name, [...uuids.values()]);
    inline.set(f.name, new Map([...uuids].filter(([, u]) => present.has(u))));
  }
  // Many-to-many fields and multi-selects sent with the row: their items become exactly the
  // targets already in (the options, made above).
  const collections: { field: string; id: string; items: string[] }[] = [];
  const files: FileFieldValue[] = [];

  let unfit: Record<string, number> | undefined;
  const storedEmpty = (field: string, n = 1) => {
    if (n === 0) return;
    unfit ??= {};
    unfit[field] = (unfit[field] ?? 0) + n;
  };
  let coerced: Record<string, number> | undefined;
  const noteFor = (field: string) => (what: Coercion | RelationCoercion) => {
    coerced ??= {};
    const key = `${field}: ${what}`;
    coerced[key] = (coerced[key] ?? 0) + 1;
  };
  const notes = type.fields.map((f) => noteFor(f.name));
  // The names a row that carries every field sets, in the order its values are given; a row
  // missing a field gets names of its own (see below).
  const allNames: string[] = [];
  if (type.titleField) allNames.push(titleName);
  for (const f of type.fields) {
    if (f.kind === 'primitive' || (f.kind === 'enum' && !f.many)) allNames.push(f.name);
    else if (f.kind === 'relation') {
      allNames.push(f.rawName);
      if (inline.has(f.name) && !f.many) allNames.push(f.name);
    }
  }
  // The rows in page order, as the entity store's create of rows takes them (create-rows.ts):
  // each row's id, its values, and the names they are for (allNames, or the row's own).
  const rowIds: string[] = [];
  const rowValues: unknown[][] = [];
  const rowNames: string[][] = [];
  const links: [string, string, string][] = [];
  const docs: { field: string; format: 'md' | 'html'; id: string; content: string }[] = [];
  for (const [id, item] of byId) {
    const values: unknown[] = [];
    /** the row's own names, from its first missing field on */
    let names: string[] | undefined;
    if (type.titleField) {
      const title = item[type.titleField];
      put(values, names, titleName, title === null || title === undefined ? null : String(title));
    }
    for (let k = 0; k < type.fields.length; k++) {
      const f = type.fields[k] as MappedField;
      const raw = item[f.appId];
      if (raw === undefined && !Object.hasOwn(item, f.appId)) {
        names ??= allNames.slice(0, values.length);
        continue;
      }
      switch (f.kind) {
        case 'primitive': {
          const v = convertValue(f.convert, raw, notes[k]);
          if (v === undefined) storedEmpty(f.name);
          put(values, names, f.name, v ?? null);
          break;
        }
        case 'enum': {
          const options = optionNamesOf(f, raw).map((name) => optionId(f.enumType, name));
          if (f.many) collections.push({ field: f.name, id, items: options });
          else put(values, names, f.name, options[0] ? { 'svc/id': options[0] } : null);
          break;
        }
        case 'rich':
          docs.push({
            field: f.name,
            format: f.format,
            id,
            content: richTextOf(raw, f.format),
          });
          break;
        case 'files': {
          const { refs, invalid } = parseFileRefs(raw);
          storedEmpty(f.name, invalid);
          files.push({ id, field: f.name, refs });
          break;
        }
        case 'relation': {
          const targets = relationTargets(f.many, raw, notes[k]);
          // The value as sent stays readable, whether or not it resolves to a synced row.
          put(values, names, f.rawName, targets.length > 0 ? targets.join(', ') : null);
          const direct = inline.get(f.name);
          if (direct) {
            // The targets already in are set now; the others wait for the end of the run.
            const ids = targets.map((t) => direct.get(t)).filter((u): u is string => u !== undefined);
            if (!f.many) put(values, names, f.name, ids[0] ? { 'svc/id': ids[0] } : null);
            else collections.push({ field: f.name, id, items: ids });
            if (ids.length === targets.length) break;
          }
          links.push([f.name, id, JSON.stringify(targets)]);
          break;
        }
      }
    }
    rowIds.push(id);
    rowValues.push(values);
    rowNames.push(names ?? allNames);
  }
  const entity = (i: number): Json => {
    const e: Json = { 'svc/id': rowIds[i] };
    const names = rowNames[i] as string[];
    const values = rowValues[i] as unknown[];
    for (let k = 0; k < names.length; k++) e[names[k] as string] = values[k];
    return e;
  };
  /** every row carries every field (the common case): the creates go as one create of rows */
  const allFull = rowNames.every((names) => names === allNames);
  // One batch: creates (new ids) first, in page order, as one multi-row insert, then updates
  // (known ids), then the collection items to add and remove.
  const write = async (known: Set<string>) => {
    const commands: Json[] = [];
    const created: CreateRows = { names: allNames, ids: [], rows: [] };
    for (let i = 0; i < rowIds.length; i++) {
      if (known.has(rowIds[i] as string)) continue;
      if (allFull) {
        (created.ids as string[]).push(rowIds[i] as string);
        (created.rows as unknown[][]).push(rowValues[i] as unknown[]);
      } else commands.push({ command: 'svc.entity/create', args: { type: type.name, entity: entity(i) } });
    }
    if (created.ids.length > 0) commands.push(createRowsCommand(type.name, created));
    if (known.size > 0)
      for (let i = 0; i < rowIds.length; i++)
        if (known.has(rowIds[i] as string))
          commands.push({ command: 'svc.entity/update', args: { type: type.name, entity: entity(i) } });
    const linked = await collectionItems(
      ctx.workspace,
      type.name,
      collections.map((c) => c.field),
      collections.map((c) => c.id).filter((id) => known.has(id)),
    );
    commands.push(...replaceItemsCommands(type.name, linked, collections));
    // Nothing reads the created rows back: a type nobody listens to builds no result per row.
    await run(ctx.workspace, commands, { createResults: false });
  };
  if (ctx.newTypes?.has(type.name)) {
    try {
      await write(new Set());
    } catch (error) {
      if (ctx.signal?.aborted) throw error;
      await write(await existingIds(ctx.workspace, type.name, ids));
    }
  } else await write(await existingIds(ctx.workspace, type.name, ids));

  if (docs.length > 0) await writeDocuments(ctx, type, docs);
  if (links.length > 0) {
    await ctx.workspace.driver.query(
      `INSERT INTO weft_host_links (run_id, type, field, entity_id, targets)
       SELECT $1, $2, f, e::uuid, t::jsonb FROM unnest($3::text[], $4::text[], $5::text[]) AS x(f, e, t)
       ON CONFLICT (run_id, type, field, entity_id) DO UPDATE SET targets = excluded.targets`,
      [ctx.runId, type.appType, links.map((l) => l[0]), links.map((l) => l[1]), links.map((l) => l[2])],
    );
  }
  let fileCounts: WriteResult['files'];
  if (files.length > 0) {
    const written = await writeFileFields(
      {
        workspace: ctx.workspace,
        sourceId: ctx.sourceId,
        app: ctx.app,
        concurrency: ctx.fileConcurrency,
        signal: ctx.signal,
      },
      type.name,
      files,
    );
    fileCounts = {
      downloaded: written.downloaded,
      kept: written.kept,
      removed: written.removed,
      failed: written.errors.length,
    };
    if (written.errors.length > 0) await reportFileErrors(ctx, type, written.errors);
  }
  return {
    set: byId.size,
    ...(unfit ? { unfit } : {}),
    ...(coerced ? { coerced } : {}),
    ...(fileCounts ? { files: fileCounts } : {}),
  };
}

const MAX_FILE_MESSAGES = 20;
/** file failures reported so far into each warnings list (a run's list lives as long as the run) */
const reported = new WeakMap<string[], number>();

/** The first few failures of a run are kept word for word; past those, one line counts the rest. */
async function reportFileErrors(ctx: WriteContext, type: MappedType, errors: string[]): Promise<void> {
  const warnings = ctx.warnings;
  if (!warnings) {
    // A caller that collects no warnings (app webhooks): the failures go on the run's own row.
    await ctx.workspace.driver.query(
      `UPDATE weft_host_runs SET error = left(concat_ws('; ', error, $2::text), ${MAX_RUN_MESSAGE}) WHERE id = $1`,
      [
        ctx.runId,
        errors
          .slice(0, MAX_FILE_MESSAGES)
          .map((e) => `${type.name}: ${e}`)
          .join('; '),
      ],
    );
    return;
  }
  const before = reported.get(warnings) ?? 0;
  const total = before + errors.length;
  reported.set(warnings, total);
  for (const e of errors.slice(0, Math.max(0, MAX_FILE_MESSAGES - before)))
    warnings.push(`${type.name}: ${e}`);
  if (total > MAX_FILE_MESSAGES) {
    const line = `${total - MAX_FILE_MESSAGES} more files could not be stored`;
    const at = warnings.findIndex((w) => w.endsWith(' more files could not be stored'));
    if (at >= 0) warnings[at] = line;
    else warnings.push(line);
  }
}

async function writeDocuments(
  ctx: WriteContext,
  type: MappedType,
  docs: { field: string; format: 'md' | 'html'; id: string; content: string }[],
): Promise<void> {
  const fields = [...new Set(docs.map((d) => d.field))];
  const rows = await query(
    ctx.workspace,
    {
      'q/from': type.name,
      'q/select': ['svc/id', ...fields.map((f) => ({ [f]: ['Collaboration~Documents/secret'] }))],
      'q/where': ['q/in', ['svc/id'], '$ids'],
      'q/limit': 'q/no-limit',
    },
    { $ids: [...new Set(docs.map((d) => d.id))] },
  );
  const secrets = new Map<string, string>();
  for (const r of rows) {
    for (const f of fields) {
      const ref = r[f] as Json | null;
      const secret = ref?.['Collaboration~Documents/secret'];
      if (typeof secret === 'string') secrets.set(`${r['svc/id']}\0${f}`, secret);
    }
  }
  const writes: DocumentWrite[] = [];
  for (const d of docs) {
    const secret = secrets.get(`${d.id}\0${d.field}`);
    if (secret) writes.push({ secret, content: d.content, format: d.format });
  }
  await ctx.workspace.driver.transaction((tx) => storeDocuments(tx, writes));
}

/** Deletes the rows the app removed; returns how many existed. */
export async function removeRows(ctx: WriteContext, type: MappedType, appIds: string[]): Promise<number> {
  const ids = [...new Set(appIds.map((a) => entityId(ctx.sourceId, type.appType, a)))];
  const known = [...(await existingIds(ctx.workspace, type.name, ids))];
  await deleteEntities(ctx.workspace, type.name, known);
  return known.length;
}

export async function deleteEntities(workspace: Workspace, type: string, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += QUERY_CHUNK) {
    // The row's downloaded files go with it.
    await deleteRowFiles(workspace, type, ids.slice(i, i + QUERY_CHUNK));
    await run(
      workspace,
      ids
        .slice(i, i + QUERY_CHUNK)
        .map((id) => ({ command: 'svc.entity/delete', args: { type, entity: { 'svc/id': id } } })),
    );
  }
}

/**
 * Full sync: removes the rows of `type` that run `runId` did not send (writeRows' `seen`) and that
 * nothing changed since it began at `since` (a webhook event's row, a row a user made meanwhile,
 * stay). Sent is not told by the modification date: a row sent as it was keeps its date.
 */
export async function removeUnsent(
  workspace: Workspace,
  type: string,
  runId: string,
  since: string,
): Promise<number> {
  const { table } = (await loadCatalog(workspace.driver)).type(type);
  let removed = 0;
  for (;;) {
    const { rows } = await workspace.driver.query<{ id: string }>(
      `SELECT t.id::text AS id FROM ${table} t WHERE t.modified < $2
         AND NOT EXISTS (SELECT 1 FROM weft_host_seen s, unnest(s.ids) AS u(id) WHERE s.run_id = $1 AND u.id = t.id)
       LIMIT ${QUERY_CHUNK}`,
      [runId, since],
    );
    if (rows.length === 0) return removed;
    await deleteEntities(
      workspace,
      type,
      rows.map((r) => r.id),
    );
    removed += rows.length;
  }
}

/** A run's marks of the rows it sent, once its removal no longer needs them (or it ended). */
export async function forgetSeen(workspace: Workspace, runId: string): Promise<void> {
  await workspace.driver.query('DELETE FROM weft_host_seen WHERE run_id = $1', [runId]);
}

/** References that resolved to no synced row, per relation field: how many, and a few of them. */
export type Unresolved = Map<string, { count: number; sample: string[]; raw: string }>;

const UNRESOLVED_SAMPLE = 5;

/**
 * Sets the relation fields recorded by this run, now that both sides are in (for the rows that
 * landed); answers the references that resolved to no synced row. `keepUnresolved` (a failed run,
 * whose other types' pages may still land) keeps the links not fully resolved, for a later call.
 */
export async function resolveLinks(
  ctx: WriteContext,
  options: { keepUnresolved?: boolean } = {},
): Promise<Unresolved> {
  const unresolved: Unresolved = new Map();
  const { driver } = ctx.workspace;
  let after: [string, string, string] = ['', '', '00000000-0000-0000-0000-000000000000'];
  for (;;) {
    const { rows } = await driver.query<{
      type: string;
      field: string;
      entity_id: string;
      targets: string[];
    }>(
      `SELECT type, field, entity_id::text, targets FROM weft_host_links
        WHERE run_id = $1 AND (type, field, entity_id) > ($2, $3, $4::uuid)
        ORDER BY type, field, entity_id LIMIT 1000`,
      [ctx.runId, ...after],
    );
    if (rows.length === 0) break;
    const last = rows[rows.length - 1] as (typeof rows)[number];
    after = [last.type, last.field, last.entity_id];
    const groups = new Map<string, typeof rows>();
    for (const r of rows)
      groups.set(`${r.type}\0${r.field}`, [...(groups.get(`${r.type}\0${r.field}`) ?? []), r]);
    for (const group of groups.values()) {
      const done = await resolveGroup(ctx, group, unresolved);
      const first = group[0];
      if (options.keepUnresolved && first && done.length > 0)
        await driver.query(
          `DELETE FROM weft_host_links WHERE run_id = $1 AND type = $2 AND field = $3 AND entity_id = ANY($4::uuid[])`,
          [ctx.runId, first.type, first.field, done],
        );
    }
  }
  if (!options.keepUnresolved)
    await driver.query(`DELETE FROM weft_host_links WHERE run_id = $1`, [ctx.runId]);
  return unresolved;
}

async function resolveGroup(
  ctx: WriteContext,
  rows: { type: string; field: string; entity_id: string; targets: string[] }[],
  unresolved: Unresolved,
): Promise<string[]> {
  const first = rows[0];
  const type = first && ctx.types.get(first.type);
  const field = type?.fields.find((f) => f.name === first?.field);
  if (!type || !field || field.kind !== 'relation') return [];
  const target = ctx.types.get(field.targetAppType);
  if (!target && !field.toUsers) return [];
  // targetFieldId names the target field matched with the value; `id` is the row's own id. A
  // relation to the workspace's users names one of the user type's own fields (`user/email`).
  const values = [...new Set(rows.flatMap((r) => r.targets))];
  const toUuid = new Map<string, string>();
  if (target && field.targetFieldId === 'id') {
    for (const v of values) toUuid.set(v, entityId(ctx.sourceId, target.appType, v));
    const present = await existingIds(ctx.workspace, target.name, [...toUuid.values()]);
    for (const [v, u] of toUuid) if (!present.has(u)) toUuid.delete(v);
  } else {
    const tf = !target
      ? field.targetFieldId
      : field.targetFieldId === target.titleField
        ? `${target.name.slice(0, target.name.indexOf('/'))}/name`
        : target.fields.find((f) => f.appId === field.targetFieldId)?.name;
    if (!tf) return [];
    for (let i = 0; i < values.length; i += QUERY_CHUNK) {
      const found = await query(
        ctx.workspace,
        {
          'q/from': target ? target.name : field.targetType,
          'q/select': ['svc/id', tf],
          'q/where': ['q/in', [tf], '$v'],
          'q/limit': 'q/no-limit',
        },
        { $v: values.slice(i, i + QUERY_CHUNK) },
      );
      for (const r of found) toUuid.set(String(r[tf]), String(r['svc/id']));
    }
  }
  const present = await existingIds(
    ctx.workspace,
    type.name,
    rows.map((r) => r.entity_id),
  );
  const commands: Json[] = [];
  const wanted: { id: string; field: string; items: string[] }[] = [];
  /** rows whose every target was found */
  const done: string[] = [];
  for (const r of rows) {
    if (!present.has(r.entity_id)) continue;
    if (r.targets.every((t) => toUuid.has(t))) done.push(r.entity_id);
    const ids = r.targets.map((t) => toUuid.get(t)).filter((u): u is string => u !== undefined);
    for (const t of r.targets) {
      if (toUuid.has(t)) continue;
      const key = `${type.name}: ${field.name}`;
      const seen = unresolved.get(key) ?? { count: 0, sample: [], raw: field.rawName };
      seen.count++;
      if (seen.sample.length < UNRESOLVED_SAMPLE && !seen.sample.includes(t)) seen.sample.push(t);
      unresolved.set(key, seen);
    }
    if (field.many) {
      // The row's links become exactly the targets found: targets it no longer sends are unlinked.
      wanted.push({ id: r.entity_id, field: field.name, items: ids });
    } else {
      commands.push({
        command: 'svc.entity/update',
        args: {
          type: type.name,
          entity: { 'svc/id': r.entity_id, [field.name]: ids[0] ? { 'svc/id': ids[0] } : null },
        },
      });
    }
  }
  if (wanted.length > 0) {
    const linked = await collectionItems(
      ctx.workspace,
      type.name,
      [field.name],
      wanted.map((w) => w.id),
    );
    commands.push(...replaceItemsCommands(type.name, linked, wanted));
  }
  await run(ctx.workspace, commands);
  return done;
}
