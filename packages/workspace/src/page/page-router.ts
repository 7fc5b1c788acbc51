import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { queueButtonRun } from '../automations/store.js';
import { WorkspaceError } from '../errors.js';
import { loadCatalog } from '../schema/catalog.js';
import { authenticate } from '../tokens/token-store.js';
import type { Workspace } from '../workspace.js';
import { LoginTokens, refuseCrossOrigin, requireFormToken } from './csrf.js';
import {
  columns,
  entityIdByPublicId,
  loadEntity,
  loadTablePage,
  type TableRequest,
} from './entity-queries.js';
import { codecsFor } from '@weft/namespace';
import { entityView, tableView } from './entity-views.js';
import { runExchangesView } from './exchange-view.js';
import { html } from './html.js';
import { hasHost, syncRunRows } from './host-views.js';
import { layout, loginPage } from './layout.js';
import { LIVE_JS } from './live.js';
import { automationForms } from './automation-forms.js';
import { automationsView, enabledButtons } from './automation-views.js';
import { entityTitle, FORMAT_JS } from './format-cells.js';
import { overviewView, webhooksView } from './other-views.js';
import { pageHeaders, sendPage as send } from './send-page.js';
import {
  clearSessionCookie,
  COOKIE,
  liveSession,
  readCookie,
  requireSession,
  Sessions,
  sessionOf,
  setSessionCookie,
} from './session.js';
import { sourceForms } from './source-forms.js';
import { sourceRemoval } from './source-remove.js';
import { sourceSettings } from './source-settings.js';
import { STYLE_CSS } from './style.js';

// The workspace's page, server-rendered under /ui. Everything it reads goes through the
// workspace's own command path (svc.entity/query) or its tables; nothing secret is rendered.

const userOf = (res: Response) => sessionOf(res).pageUser;
const loginForm = z.object({ token: z.string().trim().min(1).max(1000) });
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function pageRouter(workspace: Workspace): Router {
  const sessions = new Sessions(workspace.driver);
  const logins = new LoginTokens(workspace.driver);
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '64kb' });

  // Every /ui answer gets the page's security headers; a state-changing request from another page
  // is refused before anything reads it; POST bodies are forms.
  router.use('/ui', pageHeaders, refuseCrossOrigin, (req, res, next) =>
    req.method === 'POST' ? form(req, res, next) : next(),
  );

  const showLogin = async (req: Request, res: Response, error?: string) => {
    res.locals.formToken = await logins.issue(res, req.secure);
    send(res, loginPage(error));
  };
  router.get('/ui/login', (req, res) => showLogin(req, res));
  router.post('/ui/login', logins.check, async (req, res) => {
    const parsed = loginForm.safeParse(req.body);
    const user = parsed.success ? await authenticate(workspace.driver, parsed.data.token) : undefined;
    if (!parsed.success || !user) {
      res.status(401);
      return showLogin(req, res, 'That token is not valid for this workspace.');
    }
    await sessions.delete(readCookie(req, COOKIE));
    setSessionCookie(res, await sessions.create(parsed.data.token), req.secure);
    logins.clear(res);
    res.redirect(303, '/ui');
  });

  router.get('/ui/live.js', (_req, res) => {
    res.type('text/javascript').send(LIVE_JS);
  });
  router.get('/ui/style.css', (_req, res) => {
    res.type('text/css').send(STYLE_CSS);
  });
  router.get('/ui/format.js', (_req, res) => {
    res.type('text/javascript').send(FORMAT_JS);
  });
  router.use('/ui', requireSession(sessions, workspace.driver), requireFormToken);

  router.post('/ui/logout', async (req, res) => {
    await sessions.delete(readCookie(req, COOKIE));
    clearSessionCookie(res);
    res.redirect(303, '/ui/login');
  });

  router.get('/ui', async (req, res) => {
    const catalog = await loadCatalog(workspace.driver);
    // Back from an OAuth provider (the workspace's callback sends the browser here).
    const notice = req.query.connected ? html`<p class="notice">The account is connected.</p>` : '';
    send(res, layout('Overview', html`${notice}${await overviewView(workspace, catalog)}`));
  });

  router.use(sourceForms(workspace.outbound));
  router.use(sourceRemoval());
  router.use(sourceSettings());

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
    const buttons = await enabledButtons(workspace.driver, t.name);
    send(res, layout(t.name, tableView(catalog, t, columns(catalog, t), rows, hasNext, r, buttons)));
  });

  router.get('/ui/entity', async (req, res) => {
    const catalog = await loadCatalog(workspace.driver);
    // By public id (the links scripts' utils.getEntityUrl makes): the type may be spelled in the
    // workspace's namespace word (fibery/user), as scripts name it.
    const publicId = str(req.query['public-id']);
    if (publicId !== undefined) {
      const typeName = str(req.query.type) ?? '';
      const t = catalog.type(codecsFor(workspace.namespace)?.in.name(typeName) ?? typeName);
      const id = await entityIdByPublicId(workspace, userOf(res), t, publicId);
      if (!id) throw new WorkspaceError(404, 'not-found', `No ${t.name} with public id ${publicId}`);
      res.redirect(303, `/ui/entity?type=${encodeURIComponent(t.name)}&id=${id}`);
      return;
    }
    const t = catalog.type(str(req.query.type));
    const id = str(req.query.id) ?? '';
    const detail = /^[0-9a-f-]{36}$/i.test(id)
      ? await loadEntity(workspace, userOf(res), catalog, t, id)
      : undefined;
    if (!detail) throw new WorkspaceError(404, 'not-found', `No ${t.name} ${id}`);
    const buttons = await enabledButtons(workspace.driver, t.name);
    const forms = buttons.map(
      (b) => html`<form class="inline" method="post" action="/ui/automations/run">
<input type="hidden" name="automation" value="${b.id}"><input type="hidden" name="entity" value="${id}">
<button>${b.name}</button></form> `,
    );
    const title = entityTitle(t, detail.entity);
    send(res, layout(title, entityView(catalog, t, detail, html`${forms}`)));
  });

  router.post('/ui/automations/run', async (req, res) => {
    const ids = ([] as unknown[])
      .concat(req.body?.entity ?? [])
      .filter((v): v is string => typeof v === 'string');
    await queueButtonRun(workspace.driver, String(req.body?.automation ?? ''), ids, userOf(res).id);
    res.redirect(303, '/ui/automations');
  });

  router.get('/ui/automations', async (_req, res) => {
    send(res, layout('Automations', await automationsView(workspace.driver, userOf(res))));
  });
  router.use(automationForms(workspace.driver));
  router.get('/ui/runs/:id', async (req, res) => {
    const id = req.params.id;
    const view =
      /^[0-9a-f-]{36}$/i.test(id) && (await hasHost(workspace.driver))
        ? await runExchangesView(workspace.driver, id)
        : undefined;
    if (!view) throw new WorkspaceError(404, 'not-found', `No sync run ${id.slice(0, 40)}`);
    send(res, layout('Sync run', view));
  });
  router.get('/ui/webhooks', async (_req, res) => {
    send(res, layout('Webhooks', await webhooksView(workspace.driver, userOf(res))));
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
    // Run answers and console output are the admins' (as GET /api/automations/runs).
    const admin = userOf(res).admin;
    const emit = (event: 'runs' | 'syncs', rows: unknown[]) => {
      const snapshot = JSON.stringify(rows);
      if (snapshot === seen[event]) return;
      seen[event] = snapshot;
      res.write(`event: ${event}\ndata: ${snapshot}\n\n`);
    };
    const sessionId = readCookie(req, COOKIE);
    const tick = async () => {
      if (stopped) return;
      // The stream ends with its session (logged out, or its token deleted), like any request.
      if (!(await liveSession(sessions, workspace.driver, sessionId))) {
        stop();
        res.end();
        return;
      }
      const { rows } = await workspace.driver.query(
        `SELECT r.id::text AS id, a.name, r.state, r.message, r.console,
           cardinality(r.entity_ids) AS entities, r.created_at, r.finished_at
         FROM weft_automation_runs r JOIN weft_automations a ON a.id = r.automation_id WHERE $1
         ORDER BY r.id DESC LIMIT 20`,
        [admin],
      );
      emit('runs', rows);
      if (host) emit('syncs', await syncRunRows(workspace.driver));
    };
    const timer = setInterval(() => void tick().catch(() => {}), 1000);
    const stop = () => {
      stopped = true;
      clearInterval(timer);
    };
    req.on('close', stop);
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
