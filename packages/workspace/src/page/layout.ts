import { type Html, html } from './html.js';

/** The page frame: header with the main sections, then the content. */
export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} · weft workspace</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<link rel="stylesheet" href="/ui/style.css"><script src="/ui/format.js" defer></script></head>
<body><header><strong>weft workspace</strong><a href="/ui">Overview</a><a href="/ui/automations">Automations</a>
<a href="/ui/webhooks">Webhooks</a>
<form class="inline" method="post" action="/ui/logout"><button>Log out</button></form></header>
<main><h1>${title}</h1>${body}</main></body></html>`;
}

export function loginPage(error?: string): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Log in · weft workspace</title><link rel="stylesheet" href="/ui/style.css"></head>
<body><main><h1>weft workspace</h1>
${error ? html`<p class="error">${error}</p>` : ''}
<form method="post" action="/ui/login">
<label>Workspace token <input type="password" name="token" autocomplete="current-password" required></label>
<button>Log in</button></form></main></body></html>`;
}

/** A page with one message and a way back, for answers given before or instead of the page. */
export function messagePage(title: string, message: string): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} · weft workspace</title><link rel="stylesheet" href="/ui/style.css"></head>
<body><main><h1>${title}</h1><p class="error">${message}</p><p><a href="/ui">Back to the workspace</a></p></main></body></html>`;
}

export function badge(state: string): Html {
  return html`<span class="badge ${state}">${state}</span>`;
}
