// Webhook subscriptions (v2).
import type { ClientContext } from './context.js';

export interface WebhookRun {
  http_status: string;
  elapsed_time: string;
  request_time: string;
}
export interface Webhook {
  id: number;
  url: string;
  type: string;
  state: 'active' | (string & {});
  version: string;
  runs: WebhookRun[];
}

export function webhooksApi(ctx: ClientContext) {
  return {
    /** Subscribes `url` to changes of entities of `type`. */
    create(input: { url: string; type: string }): Promise<Webhook> {
      return ctx.transport.json({ method: 'POST', path: '/api/webhooks/v2', json: input, idempotent: false });
    },
    /** Every webhook, each with its latest 50 runs. */
    list(): Promise<Webhook[]> {
      return ctx.transport.json({ method: 'GET', path: '/api/webhooks/v2', idempotent: true });
    },
    async delete(id: number): Promise<void> {
      await ctx.transport.send({ method: 'DELETE', path: `/api/webhooks/v2/${id}`, idempotent: true });
    },
  };
}
