import type { Driver } from '../db/driver.js';
import { type RunExchangeRow, runExchanges } from '../host/run-exchanges.js';
import { MAX_RUN_EXCHANGES } from '../host/run-record-limits.js';
import { type Html, html } from './html.js';
import { badge } from './layout.js';

// One sync run and its exchanges (host/run-exchanges.ts) as the page shows them: a table of every
// data request in the order it went, with its request (account secrets redacted when it was
// recorded), status, duration, items and warnings, and the app's error body where it answered
// one. Nothing here reads an account.

type Row = Record<string, unknown>;

const time = (v: unknown) => (v instanceof Date ? v.toISOString() : v ? String(v) : '');

function exchangeRow(e: RunExchangeRow, index: number): Html {
  const failed = e.error_body !== null || e.failure !== null;
  return html`<tr class="${failed ? 'exchange failed' : 'exchange'}"><td>${index + 1}</td><td>${e.type}</td><td>${e.page}</td>
<td><code>${e.method} ${e.path}</code>${e.request ? html`<details><summary>request</summary><pre class="request">${e.request}</pre></details>` : ''}</td>
<td class="status">${e.status ?? 'no answer'}</td><td>${e.duration_ms} ms</td><td class="items">${e.items ?? ''}</td>
<td class="warnings">${e.warnings.map((w) => html`<div>${w}</div>`)}</td>
<td class="answer">${e.failure ?? ''}${e.error_body !== null ? html`<pre class="error-body">${e.error_body}</pre>` : ''}</td></tr>`;
}

/** The run's page; undefined when there is no such run. */
export async function runExchangesView(driver: Driver, runId: string): Promise<Html | undefined> {
  const { rows } = await driver.query<Row>(
    `SELECT r.id::text AS id, s.name AS source, r.kind, r.status, r.mode, r.pages, r.rows_set,
       r.rows_removed, r.retries, r.error, r.duration_ms, r.started_at
     FROM weft_host_runs r JOIN weft_host_sources s ON s.id = r.source_id WHERE r.id = $1`,
    [runId],
  );
  const run = rows[0];
  if (!run) return undefined;
  const exchanges = await runExchanges(driver, runId);
  return html`<p>${run.source}: ${run.kind}${run.mode ? ` (${run.mode})` : ''} ${badge(String(run.status))},
started ${time(run.started_at)}${run.duration_ms !== null ? `, ${run.duration_ms} ms` : ''};
${run.pages} pages, ${run.rows_set} rows set, ${run.rows_removed} removed, ${run.retries} retries.</p>
${run.error ? html`<p class="error run-error">${run.error}</p>` : ''}
<h2>Exchanges</h2>
${
  exchanges.length === 0
    ? html`<p>No data request recorded for this run (it failed before its first page, or its exchanges were dropped with older runs).</p>`
    : html`<table id="exchanges"><tr><th>#</th><th>type</th><th>page</th><th>request</th><th>status</th><th>duration</th><th>items</th><th>warnings</th><th>answer</th></tr>
${exchanges.map(exchangeRow)}</table>
${exchanges.length >= MAX_RUN_EXCHANGES ? html`<p>Only the first ${MAX_RUN_EXCHANGES} exchanges of a run are recorded.</p>` : ''}`
}<p><a href="/ui">Overview</a></p>`;
}
