// Access tokens of the current user (at most two per user at the service).
import type { ClientContext } from './context.js';

export interface AccessToken {
  id: string;
  [key: string]: unknown;
}

export function tokensApi(ctx: ClientContext) {
  return {
    list(): Promise<AccessToken[]> {
      return ctx.transport.json({ method: 'GET', path: '/api/tokens', idempotent: true });
    },
    /** Creates a token; the answer carries the new secret once, so keep it out of logs. */
    create(input: Record<string, unknown> = {}): Promise<AccessToken & { token?: string }> {
      return ctx.transport.json({ method: 'POST', path: '/api/tokens', json: input, idempotent: false });
    },
    async delete(id: string): Promise<void> {
      await ctx.transport.send({
        method: 'DELETE',
        path: `/api/tokens/${encodeURIComponent(id)}`,
        idempotent: true,
      });
    },
  };
}
