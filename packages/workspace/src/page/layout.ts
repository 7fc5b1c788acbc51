import { type Html, html } from './html.js';

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#24324a;color:#fff;padding:10px 20px;display:flex;gap:18px;align-items:center}
header a{color:#dfe6f5;text-decoration:none}header strong{color:#fff;margin-right:12px}
main{padding:18px 24px;max-width:1200px}
table{border-collapse:collapse;background:#fff;width:100%;margin:8px 0 18px}
th,td{border:1px solid #d9dde5;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#e9edf4}th a{color:#1d2330}a{color:#2453a6}
.badge{display:inline-block;padding:1px 7px;border-radius:9px;background:#e2e8f2;font-size:12px}
.done,.succeeded{background:#d5f0dc}.failed{background:#f7d6d6}.running{background:#fbeec6}.queued{background:#e2e8f2}
.rich{background:#fff;border:1px solid #d9dde5;padding:4px 14px}
.error{background:#f7d6d6;padding:8px 12px;border-radius:4px}
form.inline{display:inline}
td.console pre{white-space:pre-wrap;max-height:240px;overflow:auto;margin:4px 0;font-size:12px}
.notice{background:#d5f0dc;padding:8px 12px;border-radius:4px}
`;

/** The page frame: header with the main sections, then the content. */
export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} · weft workspace</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>${STYLE}</style></head>
<body><header><strong>weft workspace</strong><a href="/ui">Overview</a><a href="/ui/automations">Automations</a>
<a href="/ui/webhooks">Webhooks</a>
<form class="inline" method="post" action="/ui/logout"><button>Log out</button></form></header>
<main><h1>${title}</h1>${body}</main></body></html>`;
}

export function loginPage(error?: string): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Log in · weft workspace</title><style>${STYLE}</style></head>
<body><main><h1>weft workspace</h1>
${error ? html`<p class="error">${error}</p>` : ''}
<form method="post" action="/ui/login">
<label>Workspace token <input type="password" name="token" autocomplete="current-password" required></label>
<button>Log in</button></form></main></body></html>`;
}

export function badge(state: string): Html {
  return html`<span class="badge ${state}">${state}</span>`;
}
