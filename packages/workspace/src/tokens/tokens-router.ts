import { Router } from 'express';
import { principalOf } from '../auth/authenticate.js';
import type { Driver } from '../db/driver.js';
import { createToken, deleteToken, listTokens } from './token-store.js';

/** The current user's access tokens: list, create (at most 2), delete. */
export function tokensRouter(driver: Driver): Router {
  const router = Router();
  router.get('/api/tokens', async (_req, res) => {
    res.json(await listTokens(driver, principalOf(res).id));
  });
  router.post('/api/tokens', async (req, res) => {
    const user = principalOf(res);
    const created = await driver.transaction((tx) => createToken(tx, user.id, req.body?.name));
    res.status(201).json(created);
  });
  router.delete('/api/tokens/:id', async (req, res) => {
    await deleteToken(driver, principalOf(res).id, req.params.id);
    res.json({});
  });
  return router;
}
