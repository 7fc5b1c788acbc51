import { Router } from 'express';
import { z } from 'zod';
import { principalOf } from '../auth/authenticate.js';
import type { Driver } from '../db/driver.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import { publicAutomation } from './definition.js';
import {
  createAutomation,
  deleteAutomation,
  getAutomation,
  listAutomations,
  listRuns,
  queueButtonRun,
  setAutomationEnabled,
  updateAutomation,
} from './store.js';

const enabledBody = z.object({ enabled: z.boolean() });
/** Whether a body's app action leaves its account out (then the stored one is kept). */
const withoutAccount = (body: unknown) => {
  const action = (body as { action?: Record<string, unknown> } | undefined)?.action;
  return action?.kind === 'app' && action.account === undefined;
};

// The automations' JSON API, under /api (so the workspace token and rate limit apply):
//   GET    /api/automations               rules and buttons (app accounts left out) (admin)
//   POST   /api/automations               create one (admin)
//   PUT    /api/automations/:id           replace one; an app action without `account` keeps its own (admin)
//   PATCH  /api/automations/:id           {enabled}: turn one on or off (admin)
//   DELETE /api/automations/:id           delete one and its runs (admin)
//   POST   /api/automations/:id/run       run a button on {entityIds: [...]} → 202 {runId}
//   GET    /api/automations/runs          latest 200 runs (?automation=<id> for one) (admin)
//
// Automations are the admins': their definitions (script code, app actions) and run records
// (answers, console output) may hold what other users may not read, so only admins list them.
// Any user runs a button; the answer is the admins' to read.

export function automationsRouter(driver: Driver): Router {
  const router = Router();
  router.get('/api/automations', async (_req, res) => {
    if (!principalOf(res).admin) throw forbidden('Only an admin can list automations');
    res.json((await listAutomations(driver)).map(publicAutomation));
  });
  router.get('/api/automations/runs', async (req, res) => {
    if (!principalOf(res).admin) throw forbidden('Only an admin can read automation runs');
    const id = typeof req.query.automation === 'string' ? req.query.automation : undefined;
    if (id !== undefined && !/^[0-9a-f-]{36}$/i.test(id)) throw badRequest('automation must be a uuid');
    res.json(await listRuns(driver, id));
  });
  router.post('/api/automations', async (req, res) => {
    if (!principalOf(res).admin) throw forbidden('Only an admin can add automations');
    res.status(201).json(publicAutomation(await createAutomation(driver, req.body)));
  });
  router.put('/api/automations/:id', async (req, res) => {
    if (!principalOf(res).admin) throw forbidden('Only an admin can change automations');
    const keepAccount = withoutAccount(req.body);
    res.json(publicAutomation(await updateAutomation(driver, req.params.id, req.body, { keepAccount })));
  });
  router.patch('/api/automations/:id', async (req, res) => {
    if (!principalOf(res).admin) throw forbidden('Only an admin can change automations');
    const parsed = enabledBody.safeParse(req.body);
    if (!parsed.success) throw badRequest('enabled must be true or false', 'invalid-args');
    await setAutomationEnabled(driver, req.params.id, parsed.data.enabled);
    res.json(publicAutomation((await getAutomation(driver, req.params.id))!));
  });
  router.delete('/api/automations/:id', async (req, res) => {
    if (!principalOf(res).admin) throw forbidden('Only an admin can delete automations');
    await deleteAutomation(driver, req.params.id);
    res.json({});
  });
  router.post('/api/automations/:id/run', async (req, res) => {
    if (!(await getAutomation(driver, req.params.id))) throw notFound(`No automation ${req.params.id}`);
    const ids = (req.body as { entityIds?: unknown } | undefined)?.entityIds;
    if (!Array.isArray(ids) || !ids.every((i) => typeof i === 'string'))
      throw badRequest('entityIds must be an array of entity ids', 'invalid-args');
    const runId = await queueButtonRun(driver, req.params.id, ids, principalOf(res).id);
    res.status(202).json({ runId });
  });
  return router;
}
