import { type Html, html } from './html.js';

// The outcome of a Verify (host/verify-run.ts) as the page shows it: per type, the rows the syncs
// lost (missing, extra, changed), with a few of each and, for changed rows, the field that differs
// with its stored and its app value.

type Json = Record<string, any>;

const value = (v: unknown) => (v === null || v === undefined ? '—' : JSON.stringify(v));

function typeView(t: Json): Html {
  const samples = t.samples as { missing: Json[]; extra: Json[]; changed: Json[] };
  return html`<h3>${t.type}: ${t.missing} missing, ${t.extra} extra, ${t.changed} changed <small>(${t.rows} rows in the app, ${t.stateRows} in the workspace)</small></h3>
${samples.missing.length ? html`<p>Missing (the syncs never added them): ${samples.missing.map((s) => s.id).join(', ')}</p>` : ''}
${samples.extra.length ? html`<p>Extra (the syncs never removed them): ${samples.extra.map((s) => s.id).join(', ')}</p>` : ''}
${
  samples.changed.length
    ? html`<table class="verify-changed"><tr><th>row</th><th>field</th><th>in the workspace</th><th>in the app</th></tr>
${samples.changed.flatMap((s) =>
  (s.fields as string[]).map(
    (f) =>
      html`<tr><td>${s.id}</td><td>${f}</td><td>${value(s.expected?.[f])}</td><td>${value(s.actual?.[f])}</td></tr>`,
  ),
)}</table>`
    : ''
}`;
}

/** A verify run (the host API's run view) as a page section. */
export function verifyView(run: Json): Html {
  if (run.status !== 'succeeded')
    return html`<p class="error">The verify failed: ${String(run.error ?? 'unknown error')}</p>`;
  const verify = run.verify as { drifted: boolean; types: Json[] };
  return html`<p id="verify-outcome">${
    verify.drifted
      ? 'The workspace drifted from the app: a full sync would change what is below.'
      : 'No drift: the workspace holds what a full sync would.'
  }</p>
${verify.types.map(typeView)}<p><a href="/ui">Overview</a></p>`;
}
