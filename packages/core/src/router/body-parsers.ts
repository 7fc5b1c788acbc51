import type { RequestHandler } from 'express';
import { PROTOCOL_PATHS } from '../protocol/paths.js';
import { jsonBody } from './json-body.js';

export const DEFAULT_BODY_LIMIT = '256kb';
export const DEFAULT_LARGE_BODY_LIMIT = '10mb';
export { DEFAULT_MAX_JSON_DEPTH } from './json-depth.js';

/** Routes whose bodies carry third-party payloads or file parameters: the large limit. */
const LARGE_BODY_PATHS = new Set<string>([
  PROTOCOL_PATHS.webhooks,
  PROTOCOL_PATHS.webhooksVerify,
  PROTOCOL_PATHS.webhooksTransform,
  PROTOCOL_PATHS.resource,
]);

/**
 * The JSON body parser: the small limit everywhere but webhook payloads and resources, and a
 * nesting-depth check on the raw bytes before parsing. The service does not always label its
 * JSON, so every body is parsed as JSON.
 */
export function jsonBodies(options: {
  limit: string | number;
  largeLimit: string | number;
  maxDepth: number;
}): RequestHandler {
  const small = jsonBody({ limit: options.limit, maxDepth: options.maxDepth });
  const large = jsonBody({ limit: options.largeLimit, maxDepth: options.maxDepth });
  return (req, res, next) => (LARGE_BODY_PATHS.has(req.path) ? large : small)(req, res, next);
}
