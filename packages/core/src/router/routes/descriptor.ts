import { PROTOCOL_PATHS } from '../../protocol/index.js';
import type { RouteKit } from './route-kit.js';

/** `GET /` (the descriptor, serialized once at start-up) and `GET /logo`. */
export function mountDescriptor({ router, app }: RouteKit): void {
  router.get(PROTOCOL_PATHS.descriptor, (_req, res) => {
    res.type('application/json').send(app.descriptorJson);
  });
  router.get(PROTOCOL_PATHS.logo, (_req, res) => {
    const logo = app.logo;
    if (logo.kind === 'svg') res.type('image/svg+xml').send(logo.body);
    else if (logo.kind === 'url') res.redirect(302, logo.url);
    else res.status(204).end();
  });
}
