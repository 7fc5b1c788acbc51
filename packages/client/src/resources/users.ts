// Users: an addition of the local workspace (the service documents no user endpoint). Useful to
// find an author for comments.
import type { ClientContext } from './context.js';

export interface User {
  'svc/id': string;
  'user/name': string;
}

export function usersApi(ctx: ClientContext) {
  return {
    list(): Promise<User[]> {
      return ctx.transport.json({ method: 'GET', path: '/api/users', idempotent: true });
    },
  };
}
