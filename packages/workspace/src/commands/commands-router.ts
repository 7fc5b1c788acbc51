import { Router } from 'express';
import { principalOf } from '../auth/authenticate.js';
import type { Workspace } from '../workspace.js';

/** POST /api/commands: an array of commands in, an array of results out (always HTTP 200). */
export function commandsRouter(workspace: Workspace): Router {
  const router = Router();
  router.post('/api/commands', async (req, res) => {
    const results = await workspace.execute(req.body, { user: principalOf(res) });
    res.json(results.map((r) => (r.success ? r : { success: false, error: r.error })));
  });
  return router;
}
