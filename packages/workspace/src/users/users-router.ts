import { Router } from 'express';
import { z } from 'zod';
import { principalOf } from '../auth/authenticate.js';
import { badRequest, forbidden } from '../errors.js';
import type { Workspace } from '../workspace.js';
import { listUsers } from './user-store.js';

const NewUser = z.object({
  name: z.string().min(1).max(200),
  email: z.string().max(320).optional(),
  admin: z.boolean().optional(),
});

/**
 * Users (an addition to the spec): anyone lists them, an admin with their e-mails (as svc/user
 * shows them: user/email is a secured field of a secured type); an admin creates them, with a
 * first token.
 */
export function usersRouter(workspace: Workspace): Router {
  const router = Router();
  router.get('/api/users', async (_req, res) => {
    const admin = principalOf(res).admin;
    res.json(
      (await listUsers(workspace.driver)).map((u) => ({
        'svc/id': u['svc/id'],
        'user/name': u['user/name'],
        ...(admin ? { 'user/email': u['user/email'] } : {}),
      })),
    );
  });
  router.post('/api/users', async (req, res) => {
    if (!principalOf(res).admin) throw forbidden('Only an admin can create users');
    const parsed = NewUser.safeParse(req.body);
    if (!parsed.success)
      throw badRequest(`Invalid user: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    const { user, token } = await workspace.createUser(parsed.data);
    res.status(201).json({ user, token });
  });
  return router;
}
