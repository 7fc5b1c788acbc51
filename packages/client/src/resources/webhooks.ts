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
    async create(input: { url: string; type: string }): Promise<Webhook> {
      const json = ctx.names ? ctx.names.out.webhook(input) : input;
      const created = await ctx.transport.json({
        method: 'POST',
        path: '/api/webhooks/v2',
        json,
        idempotent: false,
      });
      return (ctx.names ? ctx.names.in.webhook(created) : created) as Webhook;
    },
    /** Every webhook, each with its latest 50 runs. */
    async list(): Promise<Webhook[]> {
      const list = await ctx.transport.json<Webhook[]>({
        method: 'GET',
        path: '/api/webhooks/v2',
        idempotent: true,
      });
      const names = ctx.names;
      return names && Array.isArray(list) ? (list.map((w) => names.in.webhook(w)) as Webhook[]) : list;
    },
    async delete(id: number): Promise<void> {
      await ctx.transport.send({ method: 'DELETE', path: `/api/webhooks/v2/${id}`, idempotent: true });
    },
  };
}
