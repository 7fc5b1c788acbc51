import type { Principal } from '../auth/principal.js';
import type { Driver } from '../db/driver.js';
import type { Catalog } from '../schema/catalog.js';
import type { Workspace } from '../workspace.js';
import { typeHref } from './entity-views.js';
import { hostView } from './host-views.js';
import { type Html, html } from './html.js';

const time = (v: unknown) => (v instanceof Date ? v.toISOString() : v ? String(v) : '');

export async function overviewView(workspace: Workspace, catalog: Catalog): Promise<Html> {
  const types = catalog.types.filter((t) => !t.builtin).sort((a, b) => a.name.localeCompare(b.name));
  const byApp = new Map<string, string[]>();
  for (const t of types) {
    const app = t.name.split('/')[0]!;
    byApp.set(app, [...(byApp.get(app) ?? []), t.name]);
  }
  return html`${await hostView(workspace.driver)}<h2>Types</h2>
${types.length === 0 ? html`<p>No types yet: sync an app or create types through the data API.</p>` : ''}
<table id="types"><tr><th>app</th><th>types</th></tr>
${[...byApp].map(
  ([app, names]) =>
    html`<tr><td>${app}</td><td>${names.map((n, i) => html`${i ? ' · ' : ''}<a href="${typeHref(n)}">${n}</a>`)}</td></tr>`,
)}</table>`;
}

/** The webhooks `user` may see, as GET /api/webhooks/v2: an admin's all, another user's their own. */
export async function webhooksView(driver: Driver, user: Principal): Promise<Html> {
  const { rows: hooks } = await driver.query<Record<string, unknown>>(
    `SELECT id::text AS id, url, type_name, state FROM svc_webhooks WHERE $1 OR created_by = $2::uuid ORDER BY id`,
    [user.admin, user.id],
  );
  const { rows: runs } = await driver.query<Record<string, unknown>>(
    `SELECT webhook_id::text AS webhook_id, http_status, elapsed_time, request_time FROM svc_webhook_runs
     ORDER BY id DESC LIMIT 100`,
  );
  return html`<div class="scroll"><table id="webhooks"><tr><th>#</th><th>type</th><th>address</th><th>state</th><th>latest runs</th></tr>
${hooks.map((h) => {
  const mine = runs.filter((r) => r.webhook_id === h.id).slice(0, 5);
  return html`<tr><td>${h.id}</td><td>${h.type_name}</td><td>${h.url}</td><td>${h.state}</td>
<td>${mine.map((r) => html`${r.http_status} in ${r.elapsed_time} ms at ${time(r.request_time)}<br>`)}</td></tr>`;
})}</table></div>`;
}
