import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import { badRequest, notFound } from '../errors.js';
import { loadCatalog } from '../schema/catalog.js';
import { RUNS_KEPT } from './webhook-worker.js';

export interface WebhookRecord {
  id: number;
  url: string;
  type: string;
  state: string;
  version: string;
  runs: Array<{ http_status: string; elapsed_time: string; request_time: string }>;
}

export async function createWebhook(q: Queryable, user: Principal, body: unknown): Promise<WebhookRecord> {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.url !== 'string' || !/^https?:\/\//i.test(b.url) || !URL.canParse(b.url)) {
    throw badRequest('url must be an http(s) address');
  }
  if (typeof b.type !== 'string') throw badRequest('type must be a type name');
  (await loadCatalog(q)).type(b.type);
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO svc_webhooks (url, type_name, created_by) VALUES ($1, $2, $3) RETURNING id`,
    [b.url, b.type, user.id],
  );
  return { id: Number(rows[0]!.id), url: b.url, type: b.type, state: 'active', version: '2', runs: [] };
}

export async function listWebhooks(q: Queryable): Promise<WebhookRecord[]> {
  const { rows } = await q.query<{
    id: number;
    url: string;
    type_name: string;
    state: string;
    version: string;
    runs: WebhookRecord['runs'];
  }>(
    `SELECT w.id, w.url, w.type_name, w.state, w.version,
       COALESCE((SELECT json_agg(json_build_object('http_status', r.http_status, 'elapsed_time', r.elapsed_time,
           'request_time', to_char(r.request_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY r.id DESC)
         FROM (SELECT * FROM svc_webhook_runs WHERE webhook_id = w.id ORDER BY id DESC LIMIT ${RUNS_KEPT}) r), '[]'::json) AS runs
     FROM svc_webhooks w ORDER BY w.id`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    url: r.url,
    type: r.type_name,
    state: r.state,
    version: r.version,
    runs: r.runs,
  }));
}

export async function deleteWebhook(q: Queryable, id: string): Promise<void> {
  if (!/^\d{1,15}$/.test(id)) throw notFound(`No webhook ${id}`);
  const { rowCount } = await q.query(`DELETE FROM svc_webhooks WHERE id = $1`, [Number(id)]);
  if (rowCount === 0) throw notFound(`No webhook ${id}`);
}
