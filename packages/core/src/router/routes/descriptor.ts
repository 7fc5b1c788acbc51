import { PROTOCOL_PATHS } from '../../protocol/index.js';
import type { RouteKit } from './route-kit.js';

/**
 * Response header of `GET /` carrying the app's handler time limit in milliseconds. A client
 * that knows it (the conformance kit) waits a little longer than that, so that the app's own
 * 504 `{tryLater: true}` arrives instead of the client giving up first.
 */
export const TIME_LIMIT_HEADER = 'X-Weft-Time-Limit';

/** `GET /` (the descriptor, serialized once at start-up) and `GET /logo`. */
export function mountDescriptor({ router, app }: RouteKit): void {
  router.get(PROTOCOL_PATHS.descriptor, (_req, res) => {
    res.set(TIME_LIMIT_HEADER, String(app.timeoutMs));
    res.type('application/json').send(app.descriptorJson);
  });
  router.get(PROTOCOL_PATHS.logo, (_req, res) => {
    const logo = app.logo;
    if (logo.kind === 'svg') res.type('image/svg+xml').send(logo.body);
    else if (logo.kind === 'url') res.redirect(302, logo.url);
    else res.status(204).end();
  });
}
