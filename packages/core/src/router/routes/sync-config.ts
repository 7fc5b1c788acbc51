import { NotFoundError } from '../../errors/errors.js';
import { PROTOCOL_PATHS, type SchemaResponse, configRequest, schemaRequest } from '../../protocol/index.js';
import { buildConfig, configFilters } from '../../startup/compile-sync.js';
import { checkAccount } from '../boundary.js';
import { handle } from '../handle.js';
import type { RouteKit } from './route-kit.js';

/**
 * `POST config` (types, filters, webhooks flag) and `POST schema` (every requested type). Both
 * are JSON computed once at start-up, unless the app has account-dependent types or filters.
 */
export function mountSyncConfig({ router, app, options }: RouteKit): void {
  const configJson = app.configJson;
  if (configJson === undefined) return;
  const resolver = app.accountConfig;
  const dynamic = resolver.hasTypes || resolver.hasFilters;
  const staticFilters = configFilters(app.definition.sync?.filters ?? {});
  router.post(
    PROTOCOL_PATHS.config,
    handle(app, options, 'config', configRequest, async (body, scope, _req, res) => {
      // Without an account (the service may ask before one is chosen) the static config is the answer.
      if (!dynamic || !body.account || Object.keys(body.account).length === 0) {
        res.type('application/json').send(configJson);
        return;
      }
      const account = checkAccount(app, body.account);
      const filters = await resolver.filters(account, scope);
      const types = await resolver.types(account, {}, scope);
      return buildConfig(
        app.definition,
        [...app.types.values(), ...types.values()],
        [...staticFilters, ...filters.entries],
      );
    }),
  );
  router.post(
    PROTOCOL_PATHS.schema,
    handle(app, options, 'schema', schemaRequest, async (body, scope) => {
      const out: SchemaResponse = {};
      const dynamicIds = body.types.filter((id) => !app.types.has(id));
      let accountTypes: ReadonlyMap<string, { schema: SchemaResponse[string] }> = new Map();
      if (dynamicIds.length > 0 && resolver.hasTypes) {
        const account = checkAccount(app, body.account);
        const filter = await resolver.checkFilter(account, body.filter, scope);
        accountTypes = await resolver.types(account, filter, scope);
      }
      for (const id of body.types) {
        const type = app.types.get(id) ?? accountTypes.get(id);
        if (!type) throw new NotFoundError(`Unknown type "${id}"`);
        out[id] = type.schema;
      }
      return out;
    }),
  );
}
