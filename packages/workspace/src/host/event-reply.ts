import type { Response } from 'express';
import type { EventReply } from './app-webhooks.js';

// The event URL answers on the workspace's own origin, without a token, to whoever posts there
// (also a browser sent by a page of another site). So the reply the app's pre-process gives goes
// out never as something a browser would render or run: a string as plain text, anything else as
// JSON, with nosniff and a sandboxing CSP. The app does not decide what the workspace's origin
// serves.

/** Headers every answer of the event URL carries. */
const EVENT_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "sandbox; default-src 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
} as const;

export function sendEventReply(res: Response, reply: EventReply): void {
  res.set(EVENT_HEADERS);
  res.status(reply.status);
  if (reply.body === undefined) res.end();
  else if (typeof reply.body === 'string') res.type('text/plain; charset=utf-8').send(reply.body);
  else res.json(reply.body);
}
