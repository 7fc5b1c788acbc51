import { NotFoundError } from '../../errors/errors.js';
import { PROTOCOL_PATHS, type SchemaResponse, configRequest, schemaRequest } from '../../protocol/index.js';
import { handle } from '../handle.js';
import type { RouteKit } from './route-kit.js';

/** `POST config` (types, filters, webhooks flag) and `POST schema` (every requested type). */
export function mountSyncConfig({ router, app, options }: RouteKit): void {
  const configJson = app.configJson;
  if (configJson === undefined) return;
  router.post(
    PROTOCOL_PATHS.config,
    handle(app, options, 'config', configRequest, (_body, _scope, _req, res) => {
      res.type('application/json').send(configJson);
    }),
  );
  router.post(
    PROTOCOL_PATHS.schema,
    handle(app, options, 'schema', schemaRequest, (body) => {
      const out: SchemaResponse = {};
      for (const id of body.types) {
        const type = app.types.get(id);
        if (!type) throw new NotFoundError(`Unknown type "${id}"`);
        out[id] = type.schema;
      }
      return out;
    }),
  );
}
