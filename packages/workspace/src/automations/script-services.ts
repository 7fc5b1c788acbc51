import type { OutboundPolicy } from '../outbound/index.js';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import { executeCommands } from '../commands/dispatcher.js';
import type { Driver } from '../db/driver.js';
import { assertDocumentAccess } from '../documents/document-access.js';
import { appendDocument, parseFormat, readDocument, writeDocument } from '../documents/document-store.js';
import { ChunkWriter, createFileEntity } from '../files/file-store.js';
import { type FieldDef, loadCatalog } from '../schema/catalog.js';
import { FINAL_FIELD, STATE_FIELD } from '../schema/workflow.js';
import { fieldByKey, scriptSelect, scriptValue } from './entity-shapes.js';
import { isUuid } from '../schema/values.js';
import { scriptFetch } from './script-fetch.js';
import { scriptHttp } from './script-http.js';
import type { ScriptServices, ServiceImpl } from './script-runner.js';
import { scriptServiceIn } from './script-namespace.js';
import { withTypeObjects } from './schema-objects.js';
import type { Namespace } from '@weft/namespace';

// `context.getService('svc')` (or `'fibery'`, as the workspace's namespace setting names it) and
// `context.getService('http')` of a script, backed by this workspace: every entity change goes
// through the command path (so webhooks and rules see it), documents and files through the
// workspace's own stores. Calls run as the automation's user.

type Row = Record<string, unknown>;
const MAX_FILE_BYTES = 100 * 1024 * 1024;

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || v === '') throw new Error(`${what} must be a non-empty string`);
  return v;
};

export function scriptServices(
  driver: Driver,
  user: Principal,
  outbound: OutboundPolicy,
  namespace: Namespace = 'svc',
  /** the workspace's address, for `utils`' URLs */
  origin = '',
): Required<ScriptServices> {
  const run = async (command: string, args: Row): Promise<unknown> => {
    const [result] = await executeCommands(driver, [{ command, args }], user);
    if (!result) throw new Error('No result');
    if (!result.success) throw new Error(result.error.message);
    return result.result;
  };
  // Scripts written for the service name fields as its UI does ({"Name": "New Task"}): such a key
  // is taken for the field it stands for, a full field name as it is.
  const typeOf = async (type: unknown) =>
    typeof type === 'string' ? (await loadCatalog(driver)).findType(type) : undefined;
  const values = async (type: unknown, given: unknown): Promise<Row> => {
    const t = await typeOf(type);
    if (!t || typeof given !== 'object' || given === null || Array.isArray(given))
      return (given as Row) ?? {};
    // Own keys only, `__proto__` included (as Object.fromEntries makes them, never assigned).
    const entries: Array<[string, unknown]> = [];
    for (const [key, value] of Object.entries(given)) {
      const f = fieldByKey(t, key);
      entries.push([f?.name ?? key, f ? await optionByName(f, value) : value]);
    }
    return Object.fromEntries(entries);
  };
  /**
   * A select's (or workflow's) option named by its name, as scripts written for the service set
   * `{State: 'Done'}`: its `{svc/id}`. Any other value is left as it is.
   */
  const optionByName = async (f: FieldDef, value: unknown): Promise<unknown> => {
    if (f.kind !== 'one' || typeof value !== 'string' || isUuid(value)) return value;
    const target = (await loadCatalog(driver)).target(f);
    if (!target.byName.has('enum/name')) return value;
    const [found] = (await run('svc.entity/query', {
      query: {
        'q/from': target.name,
        'q/select': ['svc/id'],
        'q/where': ['=', ['enum/name'], '$n'],
        'q/limit': 1,
      },
      params: { $n: value },
    })) as Row[];
    if (!found) throw new Error(`${f.name} has no option ${JSON.stringify(value)}`);
    return { 'svc/id': found['svc/id'] };
  };
  const fieldName = async (type: unknown, field: unknown) => {
    const t = await typeOf(type);
    return t && typeof field === 'string' ? (fieldByKey(t, field)?.name ?? field) : field;
  };
  /** The rows of `type` with these ids, as svc.entity/query answers `select`. */
  const find = async (type: unknown, ids: unknown[], select: unknown) =>
    (await run('svc.entity/query', {
      query: {
        'q/from': type,
        'q/select': select,
        'q/where': ['q/in', ['svc/id'], '$ids'],
        'q/limit': 'q/no-limit',
      },
      params: { $ids: ids },
    })) as Row[];
  /**
   * getEntityById's and getEntitiesByIds' rows. A list of full names (or one holding a nested
   * select) is a q/select as written, answered as the query answers it. A list naming fields by
   * key, as the service's scripts do, is answered as the service's are: each field under the key
   * as written, relations as scripts read them (scriptValue: `{Id, Name}`, `[{Id, Name}]`,
   * `{Id, Secret}`), and the entity's `Id` always, asked for or not.
   */
  const query = async (type: unknown, ids: unknown[], fields: unknown): Promise<Row[]> => {
    if (!Array.isArray(fields) || fields.length === 0) return find(type, ids, ['svc/id']);
    const t = await typeOf(type);
    const keys = fields.every((f): f is string => typeof f === 'string') ? fields : undefined;
    if (!t || !keys || keys.every((k) => t.byName.has(k))) return find(type, ids, fields);
    const catalog = await loadCatalog(driver);
    const wanted = keys.map((key) => [key, fieldByKey(t, key)] as const);
    const select = new Map<string, unknown>([['svc/id', 'svc/id']]);
    // A key that names no field goes to the query as it is, which says what is wrong with it.
    for (const [key, f] of wanted) select.set(f?.name ?? key, f ? scriptSelect(catalog, f, user) : key);
    const rows = await find(type, ids, [...select.values()]);
    return rows.map((row) => {
      const out: Row = {};
      if (!wanted.some(([, f]) => f?.name === 'svc/id')) out.Id = row['svc/id'];
      for (const [key, f] of wanted) out[key] = f ? scriptValue(catalog, f, row[f.name]) : row[key];
      return out;
    });
  };
  /**
   * The type's workflow state field: `workflow/state` (the workflow mixin's), else its first to-one
   * field onto a select (enum) type; `final` whether its states say which are final.
   */
  const stateField = async (typeName: unknown) => {
    const catalog = await loadCatalog(driver);
    const type = catalog.type(typeName);
    const workflow = type.byName.get(STATE_FIELD);
    const candidates = workflow ? [workflow] : type.fields;
    for (const f of candidates) {
      if (f.kind !== 'one') continue;
      const target = catalog.target(f);
      if (target.byName.has('enum/name'))
        return { field: f.name, options: target.name, final: target.byName.has(FINAL_FIELD) };
    }
    throw new Error(`${type.name} has no state (select) field`);
  };
  const fmt = (v: unknown) => parseFormat(v ?? 'md');
  const list = (v: unknown, what: string): unknown[] => {
    if (!Array.isArray(v)) throw new Error(`${what} must be an array`);
    return v;
  };
  /** `{id, itemId}` pairs as add- or remove-collection-items commands. */
  const collectionCommands = async (
    mode: 'add' | 'remove',
    type: unknown,
    field: unknown,
    items: unknown,
  ) => {
    const name = await fieldName(type, field);
    return list(items, 'items').map((item) => {
      const { id, itemId } = (item ?? {}) as Row;
      return {
        command: `svc.entity/${mode}-collection-items`,
        args: {
          type,
          field: name,
          entity: { 'svc/id': str(id, 'id') },
          items: [{ 'svc/id': str(itemId, 'itemId') }],
        },
      };
    });
  };

  const svc: ServiceImpl = {
    async getEntityById(type, id, fields) {
      const [row] = await query(type, [str(id, 'id')], fields);
      if (!row) throw new Error(`${String(type)} ${String(id)} does not exist`);
      return row;
    },
    async getEntitiesByIds(type, ids, fields) {
      if (!Array.isArray(ids)) throw new Error('ids must be an array');
      return query(type, ids, fields);
    },
    createEntity: async (type, given) =>
      run('svc.entity/create', { type, entity: await values(type, given) }),
    updateEntity: async (type, id, given) =>
      run('svc.entity/update', { type, entity: { ...(await values(type, given)), 'svc/id': id } }),
    async addCollectionItem(type, id, field, itemId) {
      await run('svc.entity/add-collection-items', {
        type,
        field: await fieldName(type, field),
        entity: { 'svc/id': id },
        items: [{ 'svc/id': itemId }],
      });
    },
    async removeCollectionItem(type, id, field, itemId) {
      await run('svc.entity/remove-collection-items', {
        type,
        field: await fieldName(type, field),
        entity: { 'svc/id': id },
        items: [{ 'svc/id': itemId }],
      });
    },
    async deleteEntity(type, id) {
      await run('svc.entity/delete', { type, entity: { 'svc/id': id } });
    },
    async setState(type, id, state) {
      const { field, options } = await stateField(type);
      const found = (await run('svc.entity/query', {
        query: {
          'q/from': options,
          'q/select': ['svc/id'],
          'q/where': ['=', ['enum/name'], '$n'],
          'q/limit': 1,
        },
        params: { $n: state },
      })) as Row[];
      if (!found[0]) throw new Error(`Unknown state ${JSON.stringify(state)}`);
      await run('svc.entity/update', {
        type,
        entity: { 'svc/id': id, [field]: { 'svc/id': found[0]['svc/id'] } },
      });
    },
    // The final state: the first one marked workflow/Final, else the last option in the select's
    // order (highest rank).
    async setStateToFinal(type, id) {
      const { field, options, final } = await stateField(type);
      const found = (await run('svc.entity/query', {
        query: {
          'q/from': options,
          'q/select': ['svc/id'],
          ...(final ? { 'q/where': ['=', [FINAL_FIELD], '$final'] } : {}),
          'q/order-by': [[['svc/rank'], final ? 'q/asc' : 'q/desc']],
          'q/limit': 1,
        },
        ...(final ? { params: { $final: true } } : {}),
      })) as Row[];
      if (!found[0]) throw new Error('The state field has no options');
      await run('svc.entity/update', {
        type,
        entity: { 'svc/id': id, [field]: { 'svc/id': found[0]['svc/id'] } },
      });
    },
    async assignUser(type, id, userId) {
      await svc.addCollectionItem!(type, id, 'assignments/assignees', userId);
    },
    async unassignUser(type, id, userId) {
      await svc.removeCollectionItem!(type, id, 'assignments/assignees', userId);
    },
    // Documents as through the documents API: closed to the automation's user when their entity's
    // field is (a malformed secret fails in the store with its own message).
    async getDocumentContent(secret, format) {
      if (isUuid(secret)) await assertDocumentAccess(driver, user, [secret]);
      return (await readDocument(driver, secret, fmt(format))).content;
    },
    async setDocumentContent(secret, content, format) {
      await driver.transaction(async (tx) => {
        if (isUuid(secret)) await assertDocumentAccess(tx, user, [secret]);
        await writeDocument(tx, secret, content, fmt(format));
      });
    },
    async appendDocumentContent(secret, content, format) {
      await driver.transaction(async (tx) => {
        if (isUuid(secret)) await assertDocumentAccess(tx, user, [secret]);
        await appendDocument(tx, secret, str(content, 'content'), fmt(format));
      });
    },
    async addComment(type, id, comment, authorId, format) {
      // As in the service, comments need the Comments extension on the parent type. Checked
      // before anything is written, with a message that says what to do (the batch below would
      // fail on the missing comment type with a bare "Unknown type").
      const parent = (await loadCatalog(driver)).type(type);
      if (!parent.byName.has('comments/comments'))
        throw new Error(
          `${parent.name} has no comments: install the Comments extension on it first (svc.app/install-mixins with comments/comments-mixin)`,
        );
      const text = str(comment, 'comment');
      const commentId = randomUUID();
      const secret = randomUUID();
      await run('svc.command/batch', {
        commands: [
          {
            command: 'svc.entity/create',
            args: {
              type: 'comments/comment',
              entity: {
                'svc/id': commentId,
                'comment/document-secret': secret,
                'comment/author': { 'svc/id': typeof authorId === 'string' && authorId ? authorId : user.id },
              },
            },
          },
          {
            command: 'svc.entity/add-collection-items',
            args: {
              type,
              field: 'comments/comments',
              entity: { 'svc/id': id },
              items: [{ 'svc/id': commentId }],
            },
          },
        ],
      });
      await writeDocument(driver, secret, text, fmt(format));
      return { 'svc/id': commentId, 'comment/document-secret': secret };
    },
    async executeSingleCommand(command) {
      const c = command as Row;
      return run(String(c?.command ?? ''), (c?.args as Row) ?? {});
    },
    async addFileFromUrl(url, fileName, type, id, headers) {
      const res = await scriptFetch(
        outbound,
        str(url, 'url'),
        { method: 'GET', headers: (headers as Record<string, string>) ?? {} },
        { maxBytes: MAX_FILE_BYTES, timeoutMs: 30_000, tooLarge: 'The file is too large' },
      );
      if (res.status < 200 || res.status > 299) {
        res.close();
        throw new Error(`The file address answered HTTP ${res.status}`);
      }
      const writer = new ChunkWriter(driver);
      try {
        for await (const data of res.body) await writer.write(Buffer.from(data));
        await writer.end();
      } catch (error) {
        await writer.discard().catch(() => {});
        throw error;
      }
      const name = typeof fileName === 'string' && fileName ? fileName : 'file';
      const file = await createFileEntity(
        driver,
        user,
        writer.secret,
        name,
        res.headers.get('content-type') ?? 'application/octet-stream',
        writer.total,
      );
      if (type && id) await svc.addCollectionItem!(type, id, 'Files/Files', file['svc/id']);
      return file;
    },
    async graphql() {
      throw new Error('The local workspace has no GraphQL interface');
    },
    async executeAction() {
      throw new Error("The local workspace runs no other automation's actions from a script");
    },
    // The service's batch forms, each one command (one transaction): all or nothing.
    async createEntityBatch(type, entities) {
      return run('svc.entity.batch/create', {
        type,
        entities: await Promise.all(list(entities, 'entities').map((e) => values(type, e))),
      });
    },
    async updateEntityBatch(type, entities) {
      const commands = await Promise.all(
        list(entities, 'entities').map(async (e) => {
          const { id, Id, ...given } = (e ?? {}) as Row;
          const entity = { ...(await values(type, given)), 'svc/id': str(id ?? Id, 'id') };
          return { command: 'svc.entity/update', args: { type, entity } };
        }),
      );
      return run('svc.command/batch', { commands });
    },
    async deleteEntityBatch(type, ids) {
      const entities = list(ids, 'ids').map((id) => ({ 'svc/id': str(id, 'id') }));
      await run('svc.entity.batch/delete', { type, entities });
    },
    async addCollectionItemBatch(type, field, items) {
      await run('svc.command/batch', { commands: await collectionCommands('add', type, field, items) });
    },
    async removeCollectionItemBatch(type, field, items) {
      await run('svc.command/batch', { commands: await collectionCommands('remove', type, field, items) });
    },
    async getSchema() {
      return run('svc.schema/query', {});
    },
  };

  const spoken = scriptServiceIn(namespace, svc, driver);
  const schema = spoken.getSchema;
  // The schema's typeObjects are read from the answer in the script's own words (schema-objects.ts).
  if (schema)
    spoken.getSchema = async () => withTypeObjects(await schema(), await loadCatalog(driver), namespace);
  return {
    name: namespace,
    svc: spoken,
    http: scriptHttp(outbound),
    origin,
  };
}
