import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { type OutboundPolicy, OutboundRefusedError, outboundFetch, readText } from '../outbound/index.js';
import { type Html, html } from './html.js';
import { layout } from './layout.js';
import { sendPage as send } from './send-page.js';
import { sessionOf } from './session.js';
import { verifyView } from './verify-view.js';

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

const syncForm = z.object({ full: z.enum(['1']).optional() });

export async function hostCall(req: Request, token: string, method: string, path: string, body?: unknown) {
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

/**
 * One input per account field: passwords and secret fields as password inputs, never pre-filled.
 * `stored` (re-authorising): the field has a stored value, so it may be left empty to keep it;
 * a field that is not secret shows its stored value (from the host API, which gives no secret).
 */
function fieldInput(f: AuthField & { stored?: boolean }, reauthorise = false): Html {
  const label = f.name ?? f.title ?? f.id;
  if (f.type === 'link')
    return html`<p>${f.value && /^https?:/i.test(f.value) ? html`<a href="${f.value}" rel="noopener noreferrer">${label}</a>` : label}</p>`;
  const secret = f.type === 'password' || f.secret === true;
  const required = !f.optional && !(reauthorise && f.stored);
  const keep = reauthorise && f.stored && secret ? 'stored: leave empty to keep it' : '';
  const value = reauthorise && !secret && f.value !== undefined ? f.value : '';
  return html`<p><label>${label}${f.optional ? ' (optional)' : ''}<br>
<input name="field.${f.id}" type="${secret ? 'password' : 'text'}" ${secret ? 'autocomplete="new-password"' : ''} ${required ? 'required' : ''} size="50" value="${value}" placeholder="${keep}"></label>
${f.description ? html`<br><small>${f.description}</small>` : ''}</p>`;
}

const isOAuth = (auth: Json) =>
  auth.id === 'oauth' ||
  auth.id === 'oauth2' ||
  ((auth.fields as AuthField[] | undefined) ?? []).some((f) => f?.type === 'oauth');

/** The account's fields from the form body: `field.<id>`; empty inputs are left out (kept or refused by the host). */
function formFields(body: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    if (k.startsWith('field.') && typeof v === 'string' && v !== '') fields[k.slice(6)] = v;
  }
  return fields;
}

const errorPage = (res: Response, status: number, title: string, message: string) => {
  res.status(status >= 400 && status < 600 ? status : 500);
  send(res, layout(title, html`<p class="error">${message}</p><p><a href="/ui">Overview</a></p>`));
};

function urlForm(url = '', error?: string): Html {
  return html`${error ? html`<p class="error">${error}</p>` : ''}
<form method="get" action="/ui/sources/new"><label>App address <input name="url" value="${url}" size="50" placeholder="http://localhost:3101" required></label>
<button>Next</button></form>`;
}

/** The re-authorise form of one source, from the host's account description (no secret in it). */
function accountForm(id: string, account: Json, error?: string): Html {
  const top = html`${error ? html`<p class="error">${error}</p>` : ''}
<p>Account: ${account.accountName ?? '—'} <small>(${account.authName})</small></p>`;
  if (account.oauth === true) {
    return html`${top}<form method="post" action="/ui/sources/${id}/oauth"><button>Connect again</button></form>
<p><small>The provider asks you to approve again; the new tokens replace this source's.</small></p>`;
  }
  const fields = ((account.fields as (AuthField & { stored?: boolean })[] | undefined) ?? []).filter(
    (f) => f && typeof f.id === 'string' && f.type !== 'oauth',
  );
  return html`${top}<form method="post" action="/ui/sources/${id}/account" id="reauthorise">
${fields.map((f) => fieldInput(f, true))}<button>Validate and save</button></form>`;
}

/** an app descriptor is a few KiB; more is not a descriptor */
const DESCRIPTOR_BYTES = 1024 * 1024;

/** The source forms; mounted after requireSession (the session's token calls the host's API). */
export function sourceForms(outbound: OutboundPolicy): Router {
  const router = Router();
  const tokenOf = (res: Response) => sessionOf(res).pageSession.token;

  router.get('/ui/sources/new', async (req, res) => {
    const url = typeof req.query.url === 'string' ? req.query.url.trim() : '';
    if (!url) return send(res, layout('Add a source', urlForm()));
    let descriptor: Json;
    try {
      if (!/^https?:\/\//i.test(url)) throw new Error();
      const answer = await outboundFetch(outbound, url, {
        headers: { accept: 'application/json' },
        timeoutMs: 10_000,
        maxBytes: DESCRIPTOR_BYTES,
      });
      descriptor = JSON.parse(await readText(answer)) as Json;
      if (!Array.isArray(descriptor.authentication)) throw new Error();
    } catch (error) {
      res.status(400);
      const refused = error instanceof OutboundRefusedError ? ` ${error.message}.` : '';
      return send(
        res,
        layout('Add a source', urlForm(url, `No app descriptor answered at that address.${refused}`)),
      );
    }
    const forms = (descriptor.authentication as Json[]).map((auth) => {
      const fields = ((auth.fields as AuthField[] | undefined) ?? []).filter(
        (f) => f && typeof f.id === 'string',
      );
      if (isOAuth(auth)) {
        // The browser goes to the provider and comes back to the workspace's callback, then here.
        return html`<h2>${auth.name}</h2>${auth.description ? html`<p>${auth.description}</p>` : ''}
<form method="post" action="/ui/sources/oauth"><input type="hidden" name="url" value="${url}">
<input type="hidden" name="authId" value="${auth.id === 'oauth' ? 'oauth' : 'oauth2'}"><button>Connect with ${auth.id === 'oauth' ? 'OAuth 1' : 'OAuth 2'}</button></form>`;
      }
      return html`<h2>${auth.name}</h2>${auth.description ? html`<p>${auth.description}</p>` : ''}
<form method="post" action="/ui/sources"><input type="hidden" name="url" value="${url}">
<input type="hidden" name="authId" value="${auth.id}">${fields.map((f) => fieldInput(f))}<button>Add and validate</button></form>`;
    });
    send(res, layout(`Add ${String(descriptor.name ?? 'a source')}`, html`<p>${url}</p>${forms}`));
  });

  router.post('/ui/sources/oauth', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const version = body.authId === 'oauth' ? 'oauth1' : 'oauth2';
    const answer = await hostCall(req, tokenOf(res), 'POST', `/api/host/${version}/start`, {
      url: String(body.url ?? ''),
    });
    if (answer.status === 200 && typeof answer.body.redirectUri === 'string')
      return res.redirect(303, answer.body.redirectUri);
    errorPage(
      res,
      answer.status === 404 ? 501 : 400,
      'Connect an account',
      String(answer.body.message ?? 'The connection did not start'),
    );
  });

  // Re-authorising a source's account: the form shows no secret; an empty secret input keeps it.
  router.get('/ui/sources/:id/account', async (req, res) => {
    const id = encodeURIComponent(req.params.id);
    const answer = await hostCall(req, tokenOf(res), 'GET', `/api/host/sources/${id}/account`);
    if (answer.status !== 200)
      return errorPage(res, answer.status, 'Re-authorise', String(answer.body.message ?? 'No such source'));
    send(res, layout('Re-authorise', accountForm(id, answer.body)));
  });

  router.post('/ui/sources/:id/account', async (req, res) => {
    const id = encodeURIComponent(req.params.id);
    const answer = await hostCall(req, tokenOf(res), 'PUT', `/api/host/sources/${id}/account`, {
      fields: formFields((req.body ?? {}) as Record<string, unknown>),
    });
    if (answer.status === 200) return res.redirect(303, '/ui');
    const current = await hostCall(req, tokenOf(res), 'GET', `/api/host/sources/${id}/account`);
    if (current.status !== 200)
      return errorPage(res, answer.status, 'Re-authorise', String(answer.body.message ?? 'Refused'));
    res.status(400);
    send(
      res,
      layout('Re-authorise', accountForm(id, current.body, String(answer.body.message ?? 'Refused'))),
    );
  });

  router.post('/ui/sources/:id/oauth', async (req, res) => {
    const id = encodeURIComponent(req.params.id);
    const answer = await hostCall(req, tokenOf(res), 'POST', `/api/host/sources/${id}/oauth/start`);
    if (answer.status === 200 && typeof answer.body.redirectUri === 'string')
      return res.redirect(303, answer.body.redirectUri);
    errorPage(
      res,
      answer.status,
      'Re-authorise',
      String(answer.body.message ?? 'The connection did not start'),
    );
  });

  router.post('/ui/sources', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const fields = formFields(body);
    const answer = await hostCall(req, tokenOf(res), 'POST', '/api/host/sources', {
      url: String(body.url ?? ''),
      authId: String(body.authId ?? ''),
      fields,
    });
    // Then its types and filter, as the service asks after an account is connected.
    if (answer.status === 201)
      return res.redirect(303, `/ui/sources/${encodeURIComponent(String(answer.body.id))}/settings?added=1`);
    res.status(answer.status === 404 ? 501 : 400);
    const message =
      answer.status === 404
        ? 'This workspace runs without the app host.'
        : String(answer.body.message ?? 'The source was refused');
    send(res, layout('Add a source', urlForm(String(body.url ?? ''), message)));
  });

  router.post('/ui/sources/:id/sync', async (req, res) => {
    // The "Full sync" button sends full=1: every row again (docs/dev-page.md).
    const form = syncForm.safeParse(req.body ?? {});
    const full = form.success && form.data.full === '1';
    const answer = await hostCall(
      req,
      tokenOf(res),
      'POST',
      `/api/host/sources/${encodeURIComponent(req.params.id)}/syncs${full ? '?full=true' : ''}`,
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
  router.post('/ui/sources/:id/verify', async (req, res) => {
    const answer = await hostCall(
      req,
      tokenOf(res),
      'POST',
      `/api/host/sources/${encodeURIComponent(req.params.id)}/verify`,
    );
    if (answer.status !== 200) res.status(answer.status >= 400 && answer.status < 600 ? answer.status : 500);
    send(
      res,
      layout(
        'Verify',
        answer.status === 200
          ? verifyView(answer.body)
          : html`<p class="error">${String(answer.body.message ?? 'The verify did not run')}</p><p><a href="/ui">Overview</a></p>`,
      ),
    );
  });
  return router;
}
