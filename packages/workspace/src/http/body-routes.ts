import type { Express } from 'express';
import { jsonBody, KB, MB } from './body-parsers.js';

// The data API's routes that take a JSON body, and how large a body each takes. Mounted after the
// token check and the rate limit, so nobody without a token gets a body read; a path not listed
// here has no body read at all (an unknown path is answered 404 unread). A new route that takes a
// JSON body needs a line here. The upload (POST /api/files) streams its multipart body itself,
// and the app host's routes parse their own bodies (host/host-router.ts).

export interface BodyRoute {
  method: 'post' | 'put' | 'patch';
  path: string;
  /** bytes */
  limit: number;
}

export const BODY_ROUTES: readonly BodyRoute[] = [
  // a bulk write: a command batch may carry many thousands of entities
  { method: 'post', path: '/api/commands', limit: 64 * MB },
  { method: 'post', path: '/api/documents/commands', limit: 16 * MB },
  { method: 'put', path: '/api/documents/:secret', limit: 16 * MB },
  { method: 'post', path: '/api/views/json-rpc', limit: 4 * MB },
  { method: 'post', path: '/api/automations', limit: 1 * MB },
  { method: 'post', path: '/api/automations/:id/run', limit: 1 * MB },
  { method: 'put', path: '/api/automations/:id', limit: 1 * MB },
  { method: 'patch', path: '/api/automations/:id', limit: 1 * KB },
  { method: 'post', path: '/api/files/from-url', limit: 64 * KB },
  { method: 'post', path: '/api/webhooks/v2', limit: 64 * KB },
  { method: 'post', path: '/api/tokens', limit: 16 * KB },
  { method: 'post', path: '/api/users', limit: 16 * KB },
];

export function mountBodyParsers(app: Express, routes: readonly BodyRoute[] = BODY_ROUTES): void {
  for (const route of routes) app[route.method](route.path, jsonBody(route.limit));
}
