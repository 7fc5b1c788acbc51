import { Router } from 'express';
import { principalOf } from '../auth/authenticate.js';
import type { Driver } from '../db/driver.js';
import { createWebhook, deleteWebhook, listWebhooks } from './webhook-store.js';

export function webhooksRouter(driver: Driver): Router {
  const router = Router();
  router.post('/api/webhooks/v2', async (req, res) => {
    res.json(await createWebhook(driver, principalOf(res), req.body));
  });
  router.get('/api/webhooks/v2', async (_req, res) => {
    res.json(await listWebhooks(driver, principalOf(res)));
  });
  router.delete('/api/webhooks/v2/:id', async (req, res) => {
    await deleteWebhook(driver, principalOf(res), req.params.id);
    res.json({});
  });
  return router;
}
