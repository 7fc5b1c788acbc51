import express, { type Request, type Response, Router } from 'express';
import { type Html, html } from './html.js';
import { layout } from './layout.js';
import { COOKIE, readCookie, type Sessions } from './session.js';

// Adding a source and starting a sync from the page. The page does not run the app host itself:
// it calls the host's JSON API (/api/host/...) on this same server over loopback, with the
// session's token, so the host's checks, validation and sealing of accounts apply unchanged. The
// address called is the socket's own local address, never one taken from the request's headers.

type Json = Record<string, any>;

interface AuthField {
  id: string;
  name?: string;
  title?: string;
  type: string;
  description?: string;
  optional?: boolean;
  secret?: boolean;
  value?: string;
}

function selfUrl(req: Request): string {
  let address = req.socket.localAddress ?? '127.0.0.1';
  if (address.startsWith('::ffff:')) address = address.slice(7);
  if (address === '0.0.0.0' || address === '::') address = '127.0.0.1';
  return `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

async function hostCall(req: Request, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(selfUrl(req) + path, {
    method,
    headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  let json: Json = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {}
  return { status: res.status, body: json };
}

const send = (res: Response, page: Html) => {
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader(
    'content-security-policy',
    "default-src 'self'; style-src 'unsafe-inline'; img-src https: data:",
  );
  res.send(page.text);
};

/** One input per account field: passwords and secret fields as password inputs, never pre-filled. */
function fieldInput(f: AuthField): Html {
  const label = f.name ?? f.title ?? f.id;
  if (f.type === 'link')
    return html`<p>${f.value && /^https?:/i.test(f.value) ? html`<a href="${f.value}" rel="noopener noreferrer">${label}</a>` : label}</p>`;
  const secret = f.type === 'password' || f.secret === true;
  return html`<p><label>${label}${f.optional ? ' (optional)' : ''}<br>
<input name="field.${f.id}" type="${secret ? 'password' : 'text'}" ${secret ? 'autocomplete="new-password"' : ''} ${f.optional ? '' : 'required'} size="50"></label>
${f.description ? html`<br><small>${f.description}</small>` : ''}</p>`;
}

function urlForm(url = '', error?: string): Html {
  return html`${error ? html`<p class="error">${error}</p>` : ''}
<form method="get" action="/ui/sources/new"><label>App address <input name="url" value="${url}" size="50" placeholder="http://localhost:3101" required></label>
<button>Next</button></form>`;
}

export function sourceForms(sessions: Sessions): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '64kb' });
  const tokenOf = (req: Request) => sessions.token(readCookie(req, COOKIE)) ?? '';

  router.get('/ui/sources/new', async (req, res) => {
    const url = typeof req.query.url === 'string' ? req.query.url.trim() : '';
    if (!url) return send(res, layout('Add a source', urlForm()));
    let descriptor: Json;
    try {
      if (!/^https?:\/\//i.test(url)) throw new Error();
      const answer = await fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(10_000),
      });
      descriptor = (await answer.json()) as Json;
      if (!Array.isArray(descriptor.authentication)) throw new Error();
    } catch {
      res.status(400);
      return send(res, layout('Add a source', urlForm(url, 'No app descriptor answered at that address.')));
    }
    const forms = (descriptor.authentication as Json[]).map((auth) => {
      const fields = ((auth.fields as AuthField[] | undefined) ?? []).filter(
        (f) => f && typeof f.id === 'string',
      );
      if (fields.some((f) => f.type === 'oauth')) {
        return html`<h2>${auth.name}</h2><p>OAuth accounts are added through the host's JSON API (<code>POST /api/host/sources</code>).</p>`;
      }
      return html`<h2>${auth.name}</h2>${auth.description ? html`<p>${auth.description}</p>` : ''}
<form method="post" action="/ui/sources"><input type="hidden" name="url" value="${url}">
<input type="hidden" name="authId" value="${auth.id}">${fields.map(fieldInput)}<button>Add and validate</button></form>`;
    });
    send(res, layout(`Add ${String(descriptor.name ?? 'a source')}`, html`<p>${url}</p>${forms}`));
  });

  router.post('/ui/sources', form, async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(body)) {
      if (k.startsWith('field.') && typeof v === 'string' && v !== '') fields[k.slice(6)] = v;
    }
    const answer = await hostCall(req, tokenOf(req), 'POST', '/api/host/sources', {
      url: String(body.url ?? ''),
      authId: String(body.authId ?? ''),
      fields,
    });
    if (answer.status === 201) return res.redirect(303, '/ui');
    res.status(answer.status === 404 ? 501 : 400);
    const message =
      answer.status === 404
        ? 'This workspace runs without the app host.'
        : String(answer.body.message ?? 'The source was refused');
    send(res, layout('Add a source', urlForm(String(body.url ?? ''), message)));
  });

  router.post('/ui/sources/:id/sync', async (req, res) => {
    const answer = await hostCall(
      req,
      tokenOf(req),
      'POST',
      `/api/host/sources/${encodeURIComponent(req.params.id)}/syncs`,
    );
    if (answer.status === 202 || answer.status === 200) return res.redirect(303, '/ui');
    res.status(answer.status >= 400 && answer.status < 600 ? answer.status : 500);
    send(
      res,
      layout(
        'Sync',
        html`<p class="error">${String(answer.body.message ?? 'The sync did not start')}</p><p><a href="/ui">Overview</a></p>`,
      ),
    );
  });
  return router;
}
