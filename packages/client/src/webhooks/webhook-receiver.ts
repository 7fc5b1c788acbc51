// An Express handler for webhook deliveries: parses and validates the body, hands the typed
// delivery (and each effect) to your code, and answers 200 only once your code has finished, so a
// failure makes the service deliver again.
import { codecsFor, type Namespace, parseNamespace } from '@weft/namespace';
import express, { type Request, type RequestHandler, Router } from 'express';
import type { AnySchema } from '../schema-types.js';
import { parseDelivery, type WebhookDelivery, type WebhookEffect } from './delivery.js';

export interface WebhookReceiverOptions<S = AnySchema> {
  /** Called once per delivery. */
  onDelivery?: (delivery: WebhookDelivery<S>, req: Request) => unknown | Promise<unknown>;
  /** Called for each effect, in order, after `onDelivery`. */
  onEffect?: (effect: WebhookEffect<S>, delivery: WebhookDelivery<S>) => unknown | Promise<unknown>;
  /** Only effects on these types reach `onEffect` (default: all). */
  types?: string[];
  /** Largest body accepted (default `1mb`). */
  limit?: string;
  /** Told about failed handlers (the error itself; the request body is not passed on). */
  onError?: (error: unknown) => void;
  /**
   * The namespace the workspace delivers in (default svc); deliveries reach your code in svc
   * names whatever it is, like the client's answers.
   */
  namespace?: Namespace;
}

export function webhookReceiver<S = AnySchema>(options: WebhookReceiverOptions<S>): RequestHandler {
  const names = codecsFor(parseNamespace(options.namespace, 'namespace'));
  const router = Router();
  router.use(express.json({ limit: options.limit ?? '1mb' }));
  router.use(async (req, res) => {
    if (req.method !== 'POST') {
      res.status(405).json({ message: 'Deliveries are POSTed' });
      return;
    }
    let delivery: WebhookDelivery<S>;
    try {
      delivery = parseDelivery<S>(names ? names.in.delivery(req.body) : req.body);
    } catch (error) {
      const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues ?? [];
      const detail = issues.map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`).join('; ');
      res.status(400).json({ message: `Not a webhook delivery${detail ? `: ${detail}` : ''}` });
      return;
    }
    try {
      await options.onDelivery?.(delivery, req);
      if (options.onEffect) {
        for (const effect of delivery.effects) {
          if (options.types && !options.types.includes((effect as { type?: string }).type ?? '')) continue;
          await options.onEffect(effect, delivery);
        }
      }
      res.json({});
    } catch (error) {
      options.onError?.(error);
      res.status(500).json({ message: 'The delivery handler failed' });
    }
  });
  return router;
}

export { parseDelivery, type WebhookDelivery, type WebhookEffect } from './delivery.js';
