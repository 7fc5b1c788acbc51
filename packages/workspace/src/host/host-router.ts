import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { principalOf } from '../auth/authenticate.js';
import { WorkspaceError } from '../errors.js';
import { eventBody, jsonBody, KB } from '../http/body-parsers.js';
import type { AppHost } from './app-host.js';
import { EventRefused } from './app-webhooks.js';
import { sendEventReply } from './event-reply.js';
import { sourceView } from './source-store.js';
import { safeMessage } from './sync-run.js';

// The app host's JSON API (docs/dev.md): /api/host/... behind the workspace token (admins only),
// and /hooks/sources/:id, where third parties post the events of an app webhook (no token: the
// app's `verify` decides).

const json = z.record(z.string(), z.unknown());
const addSource = z.object({
  url: z.string().min(1),
  authId: z.string().min(1).optional(),
  fields: json.optional(),
  types: z.array(z.string().min(1)).optional(),
  filter: json.optional(),
  keepUnsynced: z.boolean().optional(),
  intervalSeconds: z.number().int().min(10).nullable().optional(),
});
const updateSource = addSource
  .pick({ types: true, filter: true, keepUnsynced: true, intervalSeconds: true })
  .extend({ verifyEverySeconds: z.number().int().min(60).nullable().optional() });
const datalist = z.object({ field: z.string().min(1), dependsOn: json.optional() });
const oauthStart = addSource.omit({ authId: true, fields: true });
// New account field values: absent or '' keeps the stored value, null clears an optional one.
const replaceAccount = z.object({ fields: z.record(z.string(), z.unknown()) });

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WorkspaceError(
      400,
      'bad-request',
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

function admin(res: Response): void {
  if (!principalOf(res).admin) throw new WorkspaceError(403, 'forbidden', 'Only admins manage sources');
}

export function hostRouter(host: AppHost): Router {
  const router = Router();
  // account fields, a filter, a source's settings: small
  const body = jsonBody(256 * KB);
  const param = (req: Request, key: string) => String(req.params[key]);

  router.use('/api/host', (_req, res, next) => {
    admin(res);
    next();
  });
  router.get('/api/host/sources', async (_req, res) => {
    res.json(await host.list());
  });
  router.post('/api/host/sources', body, async (req, res) => {
    res.status(201).json(await host.addSource(parse(addSource, req.body)));
  });
  router.get('/api/host/sources/:id', async (req, res) => {
    res.json(sourceView(await host.source(param(req, 'id'))));
  });
  router.patch('/api/host/sources/:id', body, async (req, res) => {
    res.json(await host.updateSource(param(req, 'id'), parse(updateSource, req.body)));
  });
  router.delete('/api/host/sources/:id', async (req, res) => {
    await host.removeSource(param(req, 'id'));
    res.status(204).end();
  });
  router.get('/api/host/sources/:id/logo', async (req, res) => {
    const source = await host.source(param(req, 'id'));
    if (!source.logo) return void res.status(204).end();
    res
      .type('image/svg+xml')
      .set('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(source.logo);
  });
  router.get('/api/host/sources/:id/config', async (req, res) => {
    const config = await host.config(param(req, 'id'));
    res.json({ types: config.types, filters: config.filters ?? [] });
  });
  router.post('/api/host/sources/:id/datalist', body, async (req, res) => {
    const { field, dependsOn } = parse(datalist, req.body);
    res.json({ items: await host.datalist(param(req, 'id'), field, dependsOn) });
  });
  router.post('/api/host/sources/:id/syncs', async (req, res) => {
    const wait = req.query.wait === 'true' || req.query.wait === '1';
    // `full`: every row again, as after a change of the app's schema (schema-fingerprint.ts).
    const full = req.query.full === 'true' || req.query.full === '1';
    const run = await host.sync(param(req, 'id'), { wait, full });
    res.status(wait ? 200 : 202).json(run);
  });
  router.post('/api/host/sources/:id/verify', async (req, res) => {
    res.json(await host.verify(param(req, 'id')));
  });
  router.get('/api/host/sources/:id/runs', async (req, res) => {
    res.json(await host.runs(param(req, 'id')));
  });
  router.get('/api/host/runs/:id', async (req, res) => {
    res.json(await host.run(param(req, 'id')));
  });
  router.post('/api/host/sources/:id/webhook', async (req, res) => {
    await host.refreshWebhook(await host.source(param(req, 'id')));
    res.json(sourceView(await host.source(param(req, 'id'))));
  });

  router.get('/api/host/sources/:id/account', async (req, res) => {
    res.json(await host.describeAccount(param(req, 'id')));
  });
  router.put('/api/host/sources/:id/account', body, async (req, res) => {
    res.json(await host.replaceAccount(param(req, 'id'), parse(replaceAccount, req.body).fields));
  });
  router.post('/api/host/sources/:id/oauth/start', async (req, res) => {
    res.json(await host.startReauthorize(param(req, 'id')));
  });
  router.post('/api/host/oauth2/start', body, async (req, res) => {
    res.json(await host.startOAuth2(parse(oauthStart, req.body)));
  });
  router.post('/api/host/oauth1/start', body, async (req, res) => {
    res.json(await host.startOAuth1(parse(oauthStart, req.body)));
  });

  // The user's browser comes back to these from the provider (no token: the state identifies the
  // connection). A browser is sent on to the page; any other client gets JSON.
  const finished = (req: Request, res: Response, source: { id: string }) => {
    if (req.accepts(['json', 'html']) === 'html')
      return void res.redirect(303, `/ui?connected=${encodeURIComponent(source.id)}`);
    res.json({ ok: true, source });
  };
  const query = (req: Request, key: string) => (typeof req.query[key] === 'string' ? req.query[key] : '');
  router.get('/hooks/oauth2/callback', async (req, res) => {
    const state = query(req, 'state');
    const code = query(req, 'code');
    if (!state || !code) {
      const error = query(req, 'error').slice(0, 100) || 'no code';
      throw new WorkspaceError(400, 'bad-request', `The authorization did not complete (${error})`);
    }
    // Every other parameter goes to the app too (a provider's `realmId`, `accounts-server`, …).
    const params = Object.fromEntries(
      Object.entries(req.query).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    finished(req, res, await host.finishOAuth2({ state, code, params }));
  });
  router.get('/hooks/oauth1/callback', async (req, res) => {
    const state = query(req, 'state');
    const verifier = query(req, 'oauth_verifier');
    if (!state || !verifier) {
      const error = query(req, 'denied') ? 'denied' : 'no verifier';
      throw new WorkspaceError(400, 'bad-request', `The authorization did not complete (${error})`);
    }
    const token = query(req, 'oauth_token');
    finished(req, res, await host.finishOAuth1(state, verifier, token || undefined));
  });

  // Third-party events: any content type, read as the exact bytes (for the app's signature check),
  // bounded and depth-checked (http/body-parsers.ts).
  router.post('/hooks/sources/:id', eventBody, async (req, res) => {
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    try {
      const { reply } = await host.webhookEvent(param(req, 'id'), {
        rawBody,
        headers: req.headers,
        query: req.query as Record<string, unknown>,
      });
      sendEventReply(res, reply);
    } catch (error) {
      if (error instanceof WorkspaceError) throw error;
      if (error instanceof EventRefused) {
        res.status(error.status).json({ message: error.message });
        return;
      }
      res.status(400).json({ message: safeMessage(error) });
    }
  });
  return router;
}
