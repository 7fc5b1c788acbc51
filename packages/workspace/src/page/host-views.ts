import type { Driver } from '../db/driver.js';
import { runModeLabel } from '../host/run-mode.js';
import { typeModes } from '../host/source-store.js';
import { type Html, html } from './html.js';
import { timeElement } from './format-cells.js';
import { badge } from './layout.js';

// Sources, accounts and sync runs, read from the app host's tables when the workspace runs with
// its host. Only named columns are read: the sealed account values never leave the database, and
// of an account the page shows its name and authentication kind only.

type Row = Record<string, unknown>;
/** A source's short id: enough to tell two sources of one app apart (the full id on hover). */
const shortId = (id: unknown) => html`<code title="${id}">${String(id).slice(0, 8)}</code>`;

export async function hasHost(driver: Driver): Promise<boolean> {
  const { rows } = await driver.query<{ t: string | null }>(
    `SELECT to_regclass('weft_host_runs')::text AS t`,
  );
  return rows[0]?.t != null;
}

/** A run's mode as weft dev tells it (host/run-mode.ts). */
const modeOf = (r: Row) =>
  runModeLabel({
    mode: r.mode as string | null,
    fullReason: r.full_reason as string | null,
    typeModes: typeModes(r.progress as Record<string, unknown> | undefined),
  });

export async function syncRunRows(driver: Driver, limit = 20): Promise<Row[]> {
  const { rows } = await driver.query<Row>(
    `SELECT r.id::text AS id, s.name AS source, s.id::text AS source_id, r.kind, r.status, r.mode, r.full_reason, r.progress, r.pages, r.rows_set, r.rows_removed,
       r.retries, r.error, r.duration_ms, r.started_at
     FROM weft_host_runs r JOIN weft_host_sources s ON s.id = r.source_id ORDER BY r.started_at DESC LIMIT $1`,
    [limit],
  );
  return rows;
}

export async function hostView(driver: Driver): Promise<Html> {
  if (!(await hasHost(driver))) {
    return html`<p>This workspace runs without the app host: no sources (start it with <code>weft dev</code>).</p>`;
  }
  const { rows: sources } = await driver.query<Row>(
    `SELECT id::text AS id, name, url, namespace, auth_id, account_name, types, interval_seconds, webhooks_enabled
     FROM weft_host_sources ORDER BY created_at`,
  );
  const runs = await syncRunRows(driver);
  return html`<h2>Sources and accounts</h2>
<p><a href="/ui/sources/new">Add a source</a></p>
<div class="scroll"><table id="sources"><tr><th>source</th><th>id</th><th>address</th><th>account</th><th>types</th><th>schedule</th><th>app webhooks</th><th></th></tr>
${sources.map(
  (
    s,
  ) => html`<tr data-source="${s.id}"><td>${s.name} <small>(${s.namespace})</small></td><td>${shortId(s.id)}</td><td>${s.url}</td>
<td>${s.account_name ?? '—'} <small>(${s.auth_id})</small></td><td>${(s.types as string[]).join(', ')}</td>
<td>${s.interval_seconds ? `every ${s.interval_seconds} s` : 'manual'}</td><td>${s.webhooks_enabled ? 'on' : 'off'}</td>
<td><form class="inline" method="post" action="/ui/sources/${s.id}/sync"><button>Sync now</button></form>
<form class="inline" method="post" action="/ui/sources/${s.id}/sync"><input type="hidden" name="full" value="1"><button>Full sync</button></form>
<form class="inline" method="post" action="/ui/sources/${s.id}/verify"><button>Verify</button></form>
${s.auth_id === 'none' ? '' : html` <a href="/ui/sources/${s.id}/account">Re-authorise</a>`}
<a href="/ui/sources/${s.id}/settings">Types and filter</a> <a href="/ui/sources/${s.id}/remove">Remove</a></td></tr>`,
)}</table></div>
<h2>Sync runs <small>(live)</small></h2>
<div class="scroll"><table id="sync-runs"><tr><th>source</th><th>kind</th><th>state</th><th>pages</th><th>rows set</th><th>removed</th><th>retries</th><th>error</th><th>started</th><th></th></tr>
${runs.map(
  (
    r,
  ) => html`<tr data-sync="${r.id}"><td>${r.source} ${shortId(r.source_id)}</td><td>${r.kind}${modeOf(r) ? html` (${modeOf(r)})` : ''}</td>
<td class="state">${badge(String(r.status))}</td><td class="pages">${r.pages}</td><td class="rows">${r.rows_set}</td>
<td class="removed">${r.rows_removed}</td><td>${r.retries}</td><td class="message">${r.error}</td><td>${timeElement(r.started_at)}</td>
<td><a class="exchanges" href="/ui/runs/${r.id}">exchanges</a></td></tr>`,
)}</table></div><script src="/ui/live.js"></script>`;
}
