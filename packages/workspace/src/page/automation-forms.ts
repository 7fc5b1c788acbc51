import { type Response, Router } from 'express';
import { z } from 'zod';
import type { Driver } from '../db/driver.js';
import { forbidden, notFound, WorkspaceError } from '../errors.js';
import type { AppAction } from '../automations/definition.js';
import {
  createAutomation,
  deleteAutomation,
  getAutomation,
  setAutomationEnabled,
  updateAutomation,
} from '../automations/store.js';
import { loadCatalog } from '../schema/catalog.js';
import { automationForm, type AutomationFormValues, deleteConfirm, EMPTY_FORM } from './automation-views.js';
import { layout } from './layout.js';
import { sendPage as send } from './send-page.js';
import { sessionOf } from './session.js';

// Creating, editing, turning on and off and deleting rules and buttons from the page. The form is
// checked here (its text fields into an automation), then by the store exactly as the JSON API's
// input is; only admins manage automations, as through the API.

const id = z.uuid();
/** The form as the browser posts it: every value a string; an unchecked box is absent. */
const automationFormBody = z.object({
  name: z.string().trim().max(200).default(''),
  trigger: z.string().default(''),
  type: z.string().trim().max(400).default(''),
  field: z.string().trim().max(400).default(''),
  kind: z.enum(['app', 'script']).default('app'),
  url: z.string().trim().max(2000).default(''),
  action: z.string().trim().max(200).default(''),
  args: z.string().max(64_000).default(''),
  account: z.string().max(64_000).default(''),
  code: z.string().max(200_000).default(''),
  timeoutMs: z.string().trim().max(10).default(''),
  enabled: z.literal('true').optional(),
});
type FormBody = z.output<typeof automationFormBody>;
const enabledBody = z.object({ enabled: z.enum(['true', 'false']) });

/** `name: value` lines into an object; a line without a colon is refused by its number. */
function lines(text: string, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const colon = line.indexOf(':');
    // Never quote the line: an account line is a secret.
    if (colon < 1)
      throw new WorkspaceError(400, 'invalid-args', `Line ${i + 1} of ${what} is not "name: value"`);
    out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  });
  return out;
}

/** The automation the form describes, in the JSON API's shape (checked again by the store). */
function toInput(f: FormBody): Record<string, unknown> {
  const action =
    f.kind === 'app'
      ? {
          kind: 'app',
          url: f.url,
          action: f.action,
          args: lines(f.args, 'the arguments'),
          account: lines(f.account, 'the account'),
        }
      : { kind: 'script', code: f.code, ...(f.timeoutMs ? { timeoutMs: Number(f.timeoutMs) } : {}) };
  return {
    name: f.name,
    trigger: f.trigger,
    type: f.type,
    ...(f.field ? { field: f.field } : {}),
    action,
    enabled: f.enabled === 'true',
  };
}

/** What the form showed again after an error: what was sent, never the account. */
const sentValues = (f: FormBody, accountFields: string[] = []): AutomationFormValues => ({
  ...f,
  accountFields,
  enabled: f.enabled === 'true',
});

function storedValues(a: NonNullable<Awaited<ReturnType<typeof getAutomation>>>): AutomationFormValues {
  const app = a.action.kind === 'app' ? (a.action as AppAction) : undefined;
  return {
    name: a.name,
    trigger: a.trigger,
    type: a.type,
    field: a.field ?? '',
    kind: a.action.kind,
    url: app?.url ?? '',
    action: app?.action ?? '',
    args: Object.entries(app?.args ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
    accountFields: Object.keys(app?.account ?? {}),
    code: a.action.kind === 'script' ? a.action.code : '',
    timeoutMs: a.action.kind === 'script' && a.action.timeoutMs ? String(a.action.timeoutMs) : '',
    enabled: a.enabled,
  };
}

function requireAdmin(res: Response): void {
  if (!sessionOf(res).pageUser.admin) throw forbidden('Only an admin can manage automations');
}

function parseId(raw: string): string {
  const parsed = id.safeParse(raw);
  if (!parsed.success) throw notFound(`No automation ${raw}`);
  return parsed.data;
}

export function automationForms(driver: Driver): Router {
  const router = Router();
  router.use('/ui/automations', (req, res, next) => {
    // Running a button is anyone's (as through the API); the rest is the admins'.
    if (!(req.method === 'POST' && req.path === '/run')) requireAdmin(res);
    next();
  });

  const showForm = async (res: Response, v: AutomationFormValues, automationId?: string, error?: string) => {
    const catalog = await loadCatalog(driver);
    if (error) res.status(400);
    send(
      res,
      layout(
        automationId ? `Edit ${v.name}` : 'New rule or button',
        automationForm(catalog, v, automationId, error),
      ),
    );
  };
  /** Runs `save`; a refused automation shows the form again with the reason. */
  const saveOrShow = async (
    res: Response,
    body: unknown,
    save: (f: FormBody) => Promise<unknown>,
    automationId?: string,
    accountFields?: string[],
  ) => {
    const parsed = automationFormBody.safeParse(body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return showForm(res, EMPTY_FORM, automationId, `${issue.path.join('.')}: ${issue.message}`);
    }
    try {
      await save(parsed.data);
    } catch (error) {
      if (!(error instanceof WorkspaceError) || error.status !== 400) throw error;
      return showForm(res, sentValues(parsed.data, accountFields), automationId, error.message);
    }
    res.redirect(303, '/ui/automations');
  };

  router.get('/ui/automations/new', async (_req, res) => {
    await showForm(res, EMPTY_FORM);
  });
  router.post('/ui/automations/new', async (req, res) => {
    await saveOrShow(res, req.body, (f) => createAutomation(driver, toInput(f)));
  });

  router.get('/ui/automations/:id/edit', async (req, res) => {
    const a = await getAutomation(driver, parseId(req.params.id));
    if (!a) throw notFound(`No automation ${req.params.id}`);
    await showForm(res, storedValues(a), a.id);
  });
  router.post('/ui/automations/:id/edit', async (req, res) => {
    const a = await getAutomation(driver, parseId(req.params.id));
    if (!a) throw notFound(`No automation ${req.params.id}`);
    const stored = storedValues(a).accountFields;
    await saveOrShow(
      res,
      req.body,
      // An empty account box keeps the sealed account.
      (f) => updateAutomation(driver, a.id, toInput(f), { keepAccount: f.account.trim() === '' }),
      a.id,
      stored,
    );
  });

  router.post('/ui/automations/:id/enabled', async (req, res) => {
    const parsed = enabledBody.safeParse(req.body ?? {});
    if (!parsed.success) throw new WorkspaceError(400, 'invalid-args', 'enabled must be true or false');
    await setAutomationEnabled(driver, parseId(req.params.id), parsed.data.enabled === 'true');
    res.redirect(303, '/ui/automations');
  });

  router.get('/ui/automations/:id/delete', async (req, res) => {
    const a = await getAutomation(driver, parseId(req.params.id));
    if (!a) throw notFound(`No automation ${req.params.id}`);
    send(res, layout('Delete an automation', deleteConfirm(a.id, a.name)));
  });
  router.post('/ui/automations/:id/delete', async (req, res) => {
    await deleteAutomation(driver, parseId(req.params.id));
    res.redirect(303, '/ui/automations');
  });
  return router;
}
