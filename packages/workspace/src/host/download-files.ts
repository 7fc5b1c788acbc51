import { deleteFileChunks } from '../files/delete-files.js';
import { createFileEntity } from '../files/file-store.js';
import { MAX_FILE_BYTES, storeStream } from '../files/store-stream.js';
import { FILE_TYPE } from '../schema/builtins.js';
import { loadCatalog } from '../schema/catalog.js';
import type { Workspace } from '../workspace.js';
import { run } from './apply-schema.js';
import { collectionItems, itemsKey } from './collection-items.js';
import { entityId } from './entity-ids.js';
import { describeUrl, type FileRef } from './file-refs.js';
import { type AppResourceContext, fetchResource } from './resource-client.js';

// The files of synced rows, stored in the workspace's own file storage and attached to the row's
// file field (a collection of svc/file). A file's id is derived from the source, the row, the
// field and the file's key, so a later sync that sends the same key finds the file already
// attached and downloads nothing; keys no longer sent are detached and their files deleted.
// Downloads run a few at a time and stream straight into storage. A download that fails leaves
// that one file out (the row and the rest of the page are written) and is reported back; the
// next sync tries it again, since the file is still missing.

type Json = Record<string, unknown>;

export const FILE_DOWNLOAD_CONCURRENCY = 4;
const DOWNLOAD_TIMEOUT_MS = 5 * 60_000;
const CHUNK = 1000;

export interface FileFieldValue {
  /** the row's workspace id */
  id: string;
  /** the workspace field (a collection of svc/file) */
  field: string;
  refs: FileRef[];
}

export interface FileWriteContext {
  workspace: Workspace;
  sourceId: string;
  /** how to reach the app for `app://resource` references; without it they fail */
  app?: AppResourceContext | undefined;
  concurrency?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface FileWriteResult {
  downloaded: number;
  kept: number;
  removed: number;
  /** one message per file that could not be stored (no query strings: they may hold secrets) */
  errors: string[];
}

/** The id of the file with `key` in `field` of row `id`: the same on every sync. */
export const fileId = (sourceId: string, id: string, field: string, key: string) =>
  entityId(sourceId, 'file', `${id}\0${field}\0${key}`);

async function query(workspace: Workspace, q: Json, params?: Json): Promise<Json[]> {
  const [result] = await workspace.execute([
    { command: 'svc.entity/query', args: { query: q, ...(params ? { params } : {}) } },
  ]);
  if (!result?.success) throw new Error(result ? result.error.message : 'query failed');
  return result.result as Json[];
}

async function existingFiles(workspace: Workspace, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await query(
      workspace,
      {
        'q/from': FILE_TYPE,
        'q/select': ['svc/id'],
        'q/where': ['q/in', ['svc/id'], '$ids'],
        'q/limit': 'q/no-limit',
      },
      { $ids: ids.slice(i, i + CHUNK) },
    );
    for (const r of rows) found.add(String(r['svc/id']));
  }
  return found;
}

/** Runs `work` over `items` with at most `limit` at once. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
}

function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1].trim());
    } catch {
      // fall through to the plain form
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/.exec(header);
  return plain?.[1]?.trim() || undefined;
}

function nameFromRef(ref: FileRef): string {
  if (ref.resource) return ref.resource.name || ref.resource.fileName || 'file';
  const last = new URL(ref.url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last) || 'file';
  } catch {
    return last || 'file';
  }
}

async function download(ctx: FileWriteContext, ref: FileRef, id: string): Promise<void> {
  const timeout = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
  let response: Response;
  if (ref.resource) {
    if (!ctx.app) throw new Error('app://resource references need the app, which this write was not given');
    response = await fetchResource(ctx.app, ref.resource, signal);
  } else {
    try {
      response = await fetch(ref.url, { signal, redirect: 'follow' });
    } catch (error) {
      const e = error as { name?: string; cause?: { code?: string } };
      throw new Error(`no answer (${e.cause?.code ?? e.name ?? 'error'})`);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`HTTP ${response.status}`);
    }
  }
  if (!response.body) throw new Error('an empty answer');
  const { driver } = ctx.workspace;
  const writer = await storeStream(
    driver,
    response.body as unknown as AsyncIterable<Uint8Array>,
    MAX_FILE_BYTES,
  );
  const name = ref.name ?? dispositionName(response.headers.get('content-disposition')) ?? nameFromRef(ref);
  const contentType = response.headers.get('content-type') ?? 'application/octet-stream';
  try {
    await createFileEntity(driver, ctx.workspace.admin, writer.secret, name, contentType, writer.total, id);
  } catch (error) {
    await writer.discard().catch(() => {});
    throw error;
  }
}

/** Deletes files (svc/file entities and their stored contents). */
export async function deleteFiles(workspace: Workspace, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const secrets: string[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await query(
      workspace,
      {
        'q/from': FILE_TYPE,
        'q/select': ['svc/secret'],
        'q/where': ['q/in', ['svc/id'], '$ids'],
        'q/limit': 'q/no-limit',
      },
      { $ids: ids.slice(i, i + CHUNK) },
    );
    for (const r of rows) if (typeof r['svc/secret'] === 'string') secrets.push(r['svc/secret']);
    await run(
      workspace,
      ids
        .slice(i, i + CHUNK)
        .map((id) => ({ command: 'svc.entity/delete', args: { type: FILE_TYPE, entity: { 'svc/id': id } } })),
    );
  }
  await deleteFileChunks(workspace.driver, secrets);
}

/**
 * The synced files of rows about to be deleted: the files in the type's own file fields (those
 * in its app namespace; files a user attached through `Files/Files` are theirs and stay).
 */
export async function deleteRowFiles(workspace: Workspace, type: string, rowIds: string[]): Promise<void> {
  if (rowIds.length === 0) return;
  const catalog = await loadCatalog(workspace.driver);
  const def = catalog.findType(type);
  const file = catalog.findType(FILE_TYPE);
  if (!def || !file) return;
  const ns = `${type.slice(0, type.indexOf('/'))}/`;
  const fields = def.fields
    .filter((f) => f.kind === 'many' && f.targetTypeId === file.id && f.name.startsWith(ns))
    .map((f) => f.name);
  if (fields.length === 0) return;
  const items = await collectionItems(workspace, type, fields, rowIds);
  await deleteFiles(
    workspace,
    [...items.values()].flatMap((set) => [...set]),
  );
}

/** Makes each row's file field hold exactly the files of `refs`, downloading only new keys. */
export async function writeFileFields(
  ctx: FileWriteContext,
  type: string,
  values: FileFieldValue[],
): Promise<FileWriteResult> {
  const result: FileWriteResult = { downloaded: 0, kept: 0, removed: 0, errors: [] };
  if (values.length === 0) return result;
  const current = await collectionItems(
    ctx.workspace,
    type,
    values.map((v) => v.field),
    values.map((v) => v.id),
  );

  const wanted: { value: FileFieldValue; ref: FileRef; id: string }[] = [];
  const stale: { row: string; field: string; id: string }[] = [];
  for (const value of values) {
    const have = current.get(itemsKey(value.id, value.field)) ?? new Set<string>();
    const keep = new Set<string>();
    for (const ref of value.refs) {
      const id = fileId(ctx.sourceId, value.id, value.field, ref.key);
      keep.add(id);
      if (have.has(id)) result.kept++;
      else wanted.push({ value, ref, id });
    }
    for (const id of have) if (!keep.has(id)) stale.push({ row: value.id, field: value.field, id });
  }

  // A file stored by an earlier write that stopped before attaching it is attached as it is.
  const stored = await existingFiles(
    ctx.workspace,
    wanted.map((w) => w.id),
  );
  const ready: typeof wanted = [];
  await eachLimited(
    wanted.filter((w) => !stored.has(w.id)),
    ctx.concurrency ?? FILE_DOWNLOAD_CONCURRENCY,
    async (w) => {
      try {
        await download(ctx, w.ref, w.id);
        result.downloaded++;
        ready.push(w);
      } catch (error) {
        result.errors.push(
          `file ${describeUrl(w.ref.url)} of ${w.value.field} could not be stored: ${(error as Error).message}`,
        );
      }
    },
  );
  ready.push(...wanted.filter((w) => stored.has(w.id)));

  const commands: Json[] = [];
  const groups = new Map<string, { row: string; field: string; ids: string[] }>();
  for (const w of ready) {
    const k = `${w.value.id}\0${w.value.field}`;
    const g = groups.get(k) ?? { row: w.value.id, field: w.value.field, ids: [] };
    g.ids.push(w.id);
    groups.set(k, g);
  }
  for (const g of groups.values())
    commands.push({
      command: 'svc.entity/add-collection-items',
      args: {
        type,
        field: g.field,
        entity: { 'svc/id': g.row },
        items: g.ids.map((id) => ({ 'svc/id': id })),
      },
    });
  for (const s of stale)
    commands.push({
      command: 'svc.entity/remove-collection-items',
      args: { type, field: s.field, entity: { 'svc/id': s.row }, items: [{ 'svc/id': s.id }] },
    });
  await run(ctx.workspace, commands);

  // Detached files are deleted with their contents: they belonged to the row alone.
  const gone = stale.map((s) => s.id);
  await deleteFiles(ctx.workspace, gone);
  result.removed = gone.length;
  return result;
}
