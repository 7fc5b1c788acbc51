import express, { type Router } from 'express';
import { NotFoundError, WeftError } from '../../errors/errors.js';
import { MARKER } from '../../define/markers.js';
import { clip } from '../../logging/clip.js';
import {
  PROTOCOL_PATHS,
  SYNC_ACTION_FIELD,
  webhookDeleteRequest,
  webhookInstallRequest,
  webhookTransformRequest,
  webhookVerifyRequest,
} from '../../protocol/index.js';
import type { CompiledType } from '../../startup/compile-app.js';
import { checkAccount, checkFilter } from '../boundary.js';
import { NO_CONTENT, handle } from '../handle.js';
import type { RouteKit } from './route-kit.js';

/** Webhook install/update (POST), removal (DELETE), verify and transform. */
export function mountWebhooks({ router, app, options }: RouteKit): void {
  const webhooks = app.definition.sync?.webhooks;
  if (!webhooks) return;
  router.post(
    PROTOCOL_PATHS.webhooks,
    handle(app, options, 'webhooks/install', webhookInstallRequest, async (body, scope) => {
      const result = await webhooks.install({
        account: checkAccount(app, body.account),
        filter: checkFilter(app, body.filter),
        types: body.types ?? [],
        webhook: body.webhook ?? null,
        url: body.url ?? undefined,
        signal: scope.signal,
        log: scope.log,
      });
      if (!result || typeof result.id !== 'string' || result.id === '') {
        throw new WeftError('The webhook install handler must return a non-empty string `id`');
      }
      return { ...result, id: result.id, events: [...(result.events ?? [])] };
    }),
  );
  router.delete(
    PROTOCOL_PATHS.webhooks,
    handle(app, options, 'webhooks/uninstall', webhookDeleteRequest, async (body, scope) => {
      await webhooks.uninstall({
        account: checkAccount(app, body.account),
        filter: checkFilter(app, body.filter),
        types: body.types ?? [],
        webhook: body.webhook,
        signal: scope.signal,
        log: scope.log,
      });
      return NO_CONTENT;
    }),
  );
  router.post(
    PROTOCOL_PATHS.webhooksVerify,
    handle(app, options, 'webhooks/verify', webhookVerifyRequest, async (body, scope) => {
      const result = await webhooks.verify({
        params: body.params ?? {},
        payload: body.payload,
        signal: scope.signal,
        log: scope.log,
      });
      const id = typeof result === 'string' ? result : result?.id;
      if (typeof id !== 'string' || id === '')
        throw new WeftError('The webhook verify handler must return the webhook id');
      return { id };
    }),
  );
  router.post(
    PROTOCOL_PATHS.webhooksTransform,
    handle(app, options, 'webhooks/transform', webhookTransformRequest, async (body, scope) => {
      const account = checkAccount(app, body.account);
      const filter = checkFilter(app, body.filter);
      const result = (await webhooks.transform({
        params: body.params ?? {},
        payload: body.payload,
        account,
        filter,
        types: body.types ?? [],
        signal: scope.signal,
        log: scope.log,
      })) as unknown as Record<string, ReadonlyArray<Record<PropertyKey, unknown>>>;
      // Rows of a type that exists only for this account are checked against that account's types.
      const types = new Map<string, CompiledType>();
      for (const typeId of Object.keys(result ?? {})) {
        const type = await app.accountConfig.findType(typeId, account, filter, scope);
        if (!type) throw new NotFoundError(`The webhook transform produced unknown type "${clip(typeId)}"`);
        types.set(typeId, type);
      }
      return { data: toDeltaRows(types, result) };
    }),
  );
}

/** Event items become delta rows: `SET` unless they say otherwise, `remove(id)` becomes `REMOVE`. */
function toDeltaRows(
  types: ReadonlyMap<string, CompiledType>,
  result: Record<string, ReadonlyArray<Record<PropertyKey, unknown>>>,
) {
  const data: Record<string, Record<string, unknown>[]> = {};
  for (const [typeId, rows] of Object.entries(result ?? {})) {
    const type = types.get(typeId)!;
    const deltaRows = rows.map((row, index) => {
      if (row[MARKER] === 'remove') return { id: row.id, [SYNC_ACTION_FIELD]: 'REMOVE' };
      if (row.id === undefined || row.id === null) {
        throw new WeftError(
          `The webhook transform produced a "${typeId}" item without \`id\` (item ${index + 1})`,
        );
      }
      return row[SYNC_ACTION_FIELD] === undefined
        ? { ...(row as Record<string, unknown>), [SYNC_ACTION_FIELD]: 'SET' }
        : (row as Record<string, unknown>);
    });
    // Values in the shape the service takes, as in data pages.
    data[typeId] = type.serialize(deltaRows);
  }
  return data;
}

/**
 * `POST webhooks/pre-process`: the third party's raw request, forwarded by the service. Mounted
 * before the JSON parser, because signatures are computed over the exact bytes received.
 */
export function mountWebhookPreProcess(
  { app, options }: RouteKit,
  router: Router,
  bodyLimit: string | number,
): void {
  const preProcess = app.definition.sync?.webhooks?.preProcess;
  if (!preProcess) return;
  router.post(
    PROTOCOL_PATHS.webhooksPreProcess,
    express.raw({ type: () => true, limit: bodyLimit }),
    handle(app, options, 'webhooks/pre-process', undefined, async (_body, scope, req) => {
      const result = await preProcess({
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        headers: req.headers,
        query: req.query as Record<string, unknown>,
        signal: scope.signal,
        log: scope.log,
      });
      if (!result || !Array.isArray(result.workspaceIds)) {
        throw new WeftError('The webhook preProcess handler must return `workspaceIds`');
      }
      return { reply: result.reply ?? {}, workspaceIds: result.workspaceIds.map(String) };
    }),
  );
}
