import type { Principal } from '../auth/principal.js';
import type { Driver } from '../db/driver.js';
import type { Catalog } from '../schema/catalog.js';
import type { Workspace } from '../workspace.js';
import { typeHref } from './entity-views.js';
import { hostView } from './host-views.js';
import { type Html, html } from './html.js';
import { badge } from './layout.js';

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

/** A script's console output, folded: the first line shows, the rest opens on a click. */
function consoleCell(text: unknown): Html | string {
  if (typeof text !== 'string' || text === '') return '';
  const lines = text.split('\n');
  const first = lines[0]!.length > 120 ? `${lines[0]!.slice(0, 120)}…` : lines[0]!;
  return html`<details><summary>${first}${lines.length > 1 ? html` <small>(${lines.length} lines)</small>` : ''}</summary><pre>${text}</pre></details>`;
}

/** Rules and buttons; their runs (answers, console output) for an admin only, as GET /api/automations/runs. */
export async function automationsView(driver: Driver, user: Principal): Promise<Html> {
  const { rows: automations } = await driver.query<Record<string, unknown>>(
    `SELECT id, name, trigger, type_name, field, action->>'kind' AS kind, action->>'action' AS action, enabled
     FROM weft_automations ORDER BY created_at`,
  );
  const { rows: runs } = await driver.query<Record<string, unknown>>(
    `SELECT r.id::text AS id, a.name, r.state, r.message, r.console, r.attempts, r.entity_ids::text[] AS entity_ids,
       r.created_at, r.finished_at
     FROM weft_automation_runs r JOIN weft_automations a ON a.id = r.automation_id WHERE $1
     ORDER BY r.id DESC LIMIT 50`,
    [user.admin],
  );
  return html`<h2>Rules and buttons</h2>
<table id="automations"><tr><th>name</th><th>when</th><th>type</th><th>does</th><th>enabled</th></tr>
${automations.map(
  (a) => html`<tr><td>${a.name}</td><td>${a.trigger}${a.field ? html` (${a.field} changed)` : ''}</td>
<td>${a.type_name}</td><td>${a.kind === 'script' ? 'script' : html`action ${a.action}`}</td><td>${a.enabled ? 'yes' : 'no'}</td></tr>`,
)}</table>
<h2>Runs <small>(live)</small></h2>
<table id="runs" data-since="${time(runs[0]?.created_at)}"><tr><th>#</th><th>automation</th><th>state</th><th>answer</th><th>console</th><th>entities</th><th>queued</th><th>finished</th></tr>
${runs.map(
  (
    r,
  ) => html`<tr data-run="${r.id}"><td>${r.id}</td><td>${r.name}</td><td class="state">${badge(String(r.state))}</td>
<td class="message">${r.message}</td><td class="console">${consoleCell(r.console)}</td><td>${(r.entity_ids as string[]).length}</td><td>${time(r.created_at)}</td><td class="finished">${time(r.finished_at)}</td></tr>`,
)}</table><script src="/ui/live.js"></script>`;
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
  return html`<table id="webhooks"><tr><th>#</th><th>type</th><th>address</th><th>state</th><th>latest runs</th></tr>
${hooks.map((h) => {
  const mine = runs.filter((r) => r.webhook_id === h.id).slice(0, 5);
  return html`<tr><td>${h.id}</td><td>${h.type_name}</td><td>${h.url}</td><td>${h.state}</td>
<td>${mine.map((r) => html`${r.http_status} in ${r.elapsed_time} ms at ${time(r.request_time)}<br>`)}</td></tr>`;
})}</table>`;
}
