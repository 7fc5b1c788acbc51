import { randomUUID } from 'node:crypto';
import { splitItems, type AppClient } from '@weft/sync-engine';
import type { AppHost } from './app-host.js';
import { applySchema } from './apply-schema.js';
import { type MappedType, mapSchema } from './schema-mapping.js';
import type { SourceRow } from './source-store.js';
import { safeMessage } from './sync-run.js';
import { removeRows, resolveLinks, type WriteContext, writeRows } from './write-rows.js';

// App webhooks: installed through the app with the workspace's event URL for the source (the
// previous webhook object is sent back, so the app can update instead of adding), deleted with
// the source, and each event verified and transformed by the app, then applied as delta rows.

type Json = Record<string, unknown>;

export async function installWebhook(
  client: AppClient,
  source: SourceRow,
  account: Json,
  url: string,
): Promise<Json> {
  return client.installWebhook({
    types: source.types,
    filter: source.filter,
    account,
    webhook: source.webhook,
    url,
  });
}

export async function removeWebhook(client: AppClient, source: SourceRow, account: Json): Promise<void> {
  if (!source.webhook) return;
  await client.deleteWebhook({
    types: source.types,
    filter: source.filter,
    account,
    webhook: source.webhook,
  });
}

export async function applyWebhookEvent(host: AppHost, source: SourceRow, params: Json, payload: unknown) {
  const client = host.client(source.url);
  const id = await client.verifyWebhook(params, payload);
  if (!source.webhook || String(source.webhook.id) !== id) {
    throw Object.assign(new Error('The event is not for this source'), { status: 404 });
  }
  const account = host.account(source);
  const data = await client.transformWebhook({
    params,
    payload,
    types: source.types,
    filter: source.filter,
    account,
  });
  const { driver } = host.workspace;
  const runId = randomUUID();
  const started = Date.now();
  await driver.query(
    `INSERT INTO weft_host_runs (id, source_id, kind, status, mode) VALUES ($1, $2, 'webhook', 'running', 'delta')`,
    [runId, source.id],
  );
  try {
    const schema = await client.schema(source.types, source.filter, account);
    const mapped = mapSchema(source.namespace, source.id, schema, source.types);
    await applySchema(host.workspace, mapped);
    const types = new Map<string, MappedType>(mapped.map((t) => [t.appType, t]));
    const ctx: WriteContext = {
      workspace: host.workspace,
      sourceId: source.id,
      runId,
      types,
      options: new Map(),
    };
    let set = 0;
    let removed = 0;
    for (const [typeId, items] of Object.entries(data)) {
      const type = types.get(typeId);
      if (!type) continue;
      const split = splitItems(items);
      set += (await writeRows(ctx, type, split.set)).set;
      if (split.remove.length > 0) removed += await removeRows(ctx, type, split.remove);
    }
    await resolveLinks(ctx);
    await driver.query(
      `UPDATE weft_host_runs SET status = 'succeeded', finished_at = clock_timestamp(), pages = 1, rows_set = $2,
         rows_removed = $3, duration_ms = $4 WHERE id = $1`,
      [runId, set, removed, Date.now() - started],
    );
    return { runId, rowsSet: set, rowsRemoved: removed };
  } catch (error) {
    await driver.query(
      `UPDATE weft_host_runs SET status = 'failed', finished_at = clock_timestamp(), error = $2, duration_ms = $3 WHERE id = $1`,
      [runId, safeMessage(error), Date.now() - started],
    );
    throw error;
  }
}
