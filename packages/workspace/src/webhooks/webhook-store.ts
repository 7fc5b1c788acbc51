import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { loadCatalog } from '../schema/catalog.js';
import { maySubscribe } from './visible-effects.js';
import { RUNS_KEPT } from './webhook-worker.js';

// Webhooks belong to the user who made them: that user (and an admin, who manages the workspace)
// lists and deletes them; another user sees none of them, not even that they exist. Only a user who
// may read a type subscribes to it, and deliveries carry what that user may read (outbox.ts).

export interface WebhookRecord {
  id: number;
  url: string;
  type: string;
  state: string;
  version: string;
  runs: Array<{ http_status: string; elapsed_time: string; request_time: string }>;
}

const NewWebhook = z.object({
  url: z
    .string()
    .max(2000)
    .refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), 'url must be an http(s) address'),
  type: z.string({ message: 'type must be a type name' }).min(1).max(400),
});

export async function createWebhook(q: Queryable, user: Principal, body: unknown): Promise<WebhookRecord> {
  const parsed = NewWebhook.safeParse(body ?? {});
  if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => i.message).join('; '));
  const { url, type } = parsed.data;
  const catalog = await loadCatalog(q);
  if (!maySubscribe(catalog, user, catalog.type(type)))
    throw forbidden(`No permission to read every entity of ${type}`);
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO svc_webhooks (url, type_name, created_by) VALUES ($1, $2, $3) RETURNING id`,
    [url, type, user.id],
  );
  return { id: Number(rows[0]!.id), url, type, state: 'active', version: '2', runs: [] };
}

/** The webhooks `user` may see: an admin's all of them, another user's their own. */
export async function listWebhooks(q: Queryable, user: Principal): Promise<WebhookRecord[]> {
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
     FROM svc_webhooks w WHERE $1 OR w.created_by = $2::uuid ORDER BY w.id`,
    [user.admin, user.id],
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

/** Deletes a webhook `user` may see (404 for any other, as for one that does not exist). */
export async function deleteWebhook(q: Queryable, user: Principal, id: string): Promise<void> {
  if (!/^\d{1,15}$/.test(id)) throw notFound(`No webhook ${id}`);
  const { rowCount } = await q.query(
    `DELETE FROM svc_webhooks WHERE id = $1 AND ($2 OR created_by = $3::uuid)`,
    [Number(id), user.admin, user.id],
  );
  if (rowCount === 0) throw notFound(`No webhook ${id}`);
}
