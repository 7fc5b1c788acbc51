// Users: an addition of the local workspace (the service documents no user endpoint). Useful to
// find an author for comments.
import type { ClientContext } from './context.js';

export interface User {
  'svc/id': string;
  'user/name': string;
}

export function usersApi(ctx: ClientContext) {
  return {
    async list(): Promise<User[]> {
      const users = await ctx.transport.json<User[]>({ method: 'GET', path: '/api/users', idempotent: true });
      const names = ctx.names;
      return names && Array.isArray(users)
        ? (users.map((u) => names.in.entity('svc/user', u)) as User[])
        : users;
    },
  };
}
