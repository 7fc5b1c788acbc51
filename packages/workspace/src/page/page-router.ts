import express, { type NextFunction, type Request, type Response, Router } from 'express';
import type { Principal } from '../auth/principal.js';
import { queueButtonRun } from '../automations/store.js';
import { WorkspaceError } from '../errors.js';
import { loadCatalog } from '../schema/catalog.js';
import { authenticate } from '../tokens/token-store.js';
import type { Workspace } from '../workspace.js';
import { columns, loadEntity, loadTablePage, type TableRequest } from './entity-queries.js';
import { entityView, tableView } from './entity-views.js';
import { type Html, html } from './html.js';
import { hasHost, syncRunRows } from './host-views.js';
import { sourceForms } from './source-forms.js';
import { layout, loginPage } from './layout.js';
import { LIVE_JS } from './live.js';
import { automationsView, overviewView, webhooksView } from './other-views.js';
import {
  clearSessionCookie,
  COOKIE,
  readCookie,
  requireSession,
  Sessions,
  setSessionCookie,
} from './session.js';

// The workspace's page, server-rendered under /ui. Everything it reads goes through the
// workspace's own command path (svc.entity/query) or its tables; nothing secret is rendered.

const send = (res: Response, page: Html) => {
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader(
    'content-security-policy',
    "default-src 'self'; style-src 'unsafe-inline'; img-src https: data:",
  );
  res.setHeader('x-frame-options', 'DENY');
  res.send(page.text);
};
const userOf = (res: Response) => res.locals.pageUser as Principal;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function pageRouter(workspace: Workspace): Router {
  const sessions = new Sessions();
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  router.get('/ui/login', (_req, res) => send(res, loginPage()));
  router.post('/ui/login', form, async (req, res) => {
    const token = str(req.body?.token);
    const user = token ? await authenticate(workspace.driver, token.trim()) : undefined;
    if (!user) {
      res.status(401);
      return send(res, loginPage('That token is not valid for this workspace.'));
    }
    setSessionCookie(res, sessions.create(user, token!.trim()), req.secure);
    res.redirect(303, '/ui');
  });
  router.post('/ui/logout', (req, res) => {
    sessions.delete(readCookie(req, COOKIE));
    clearSessionCookie(res);
    res.redirect(303, '/ui/login');
  });

  router.get('/ui/live.js', (_req, res) => {
    res.type('text/javascript').send(LIVE_JS);
  });
  router.use('/ui', requireSession(sessions));

  router.get('/ui', async (req, res) => {
    const catalog = await loadCatalog(workspace.driver);
    // Back from an OAuth provider (the workspace's callback sends the browser here).
    const notice = req.query.connected ? html`<p class="notice">The account is connected.</p>` : '';
    send(res, layout('Overview', html`${notice}${await overviewView(workspace, catalog)}`));
  });

  router.use(sourceForms(sessions, workspace.outbound));

  router.get('/ui/type', async (req, res) => {
    const catalog = await loadCatalog(workspace.driver);
    const t = catalog.type(str(req.query.name));
    const page = Math.max(0, Number.parseInt(str(req.query.page) ?? '0', 10) || 0);
    const r: TableRequest = {
      page,
      sort: str(req.query.sort) || undefined,
      desc: req.query.desc === '1',
      filterField: str(req.query.f),
      filterValue: str(req.query.v),
    };
    const { rows, hasNext } = await loadTablePage(workspace, userOf(res), catalog, t, r);
    send(res, layout(t.name, tableView(catalog, t, columns(catalog, t), rows, hasNext, r)));
  });

  router.get('/ui/entity', async (req, res) => {
    const catalog = await loadCatalog(workspace.driver);
    const t = catalog.type(str(req.query.type));
    const id = str(req.query.id) ?? '';
    const detail = /^[0-9a-f-]{36}$/i.test(id)
      ? await loadEntity(workspace, userOf(res), catalog, t, id)
      : undefined;
    if (!detail) throw new WorkspaceError(404, 'not-found', `No ${t.name} ${id}`);
    const { rows: buttons } = await workspace.driver.query<{ id: string; name: string }>(
      `SELECT id, name FROM weft_automations WHERE trigger = 'button' AND enabled AND type_name = $1 ORDER BY name`,
      [t.name],
    );
    const forms = buttons.map(
      (b) => html`<form class="inline" method="post" action="/ui/automations/run">
<input type="hidden" name="automation" value="${b.id}"><input type="hidden" name="entity" value="${id}">
<button>${b.name}</button></form> `,
    );
    const title = `${t.name} ${String(detail.entity['svc/public-id'] ?? id)}`;
    send(res, layout(title, entityView(catalog, t, detail, html`${forms}`)));
  });

  router.post('/ui/automations/run', form, async (req, res) => {
    const ids = ([] as unknown[])
      .concat(req.body?.entity ?? [])
      .filter((v): v is string => typeof v === 'string');
    await queueButtonRun(workspace.driver, String(req.body?.automation ?? ''), ids, userOf(res).id);
    res.redirect(303, '/ui/automations');
  });

  router.get('/ui/automations', async (_req, res) => {
    send(res, layout('Automations', await automationsView(workspace.driver)));
  });
  router.get('/ui/webhooks', async (_req, res) => {
    send(res, layout('Webhooks', await webhooksView(workspace.driver)));
  });

  // Live run states as server-sent events: `runs` (automation runs: state, message, console) and
  // `syncs` (sync runs), each sent again only when something in it changed.
  router.get('/ui/events', async (req, res) => {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    const seen = { runs: '', syncs: '' };
    let stopped = false;
    const host = await hasHost(workspace.driver);
    const emit = (event: 'runs' | 'syncs', rows: unknown[]) => {
      const snapshot = JSON.stringify(rows);
      if (snapshot === seen[event]) return;
      seen[event] = snapshot;
      res.write(`event: ${event}\ndata: ${snapshot}\n\n`);
    };
    const tick = async () => {
      if (stopped) return;
      const { rows } = await workspace.driver.query(
        `SELECT r.id::text AS id, a.name, r.state, r.message, r.console,
           cardinality(r.entity_ids) AS entities, r.created_at, r.finished_at
         FROM weft_automation_runs r JOIN weft_automations a ON a.id = r.automation_id
         ORDER BY r.id DESC LIMIT 20`,
      );
      emit('runs', rows);
      if (host) emit('syncs', await syncRunRows(workspace.driver));
    };
    const timer = setInterval(() => void tick().catch(() => {}), 1000);
    req.on('close', () => {
      stopped = true;
      clearInterval(timer);
    });
    await tick().catch(() => {});
  });

  router.use('/ui', (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (!(error instanceof WorkspaceError)) return next(error);
    res.status(error.status);
    send(
      res,
      layout('Not shown', html`<p class="error">${error.message}</p><p><a href="/ui">Overview</a></p>`),
    );
  });
  return router;
}
