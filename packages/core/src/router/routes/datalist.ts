import { NotFoundError, WeftError } from '../../errors/errors.js';
import { clip } from '../../logging/clip.js';
import { PROTOCOL_PATHS, datalistRequest, filterValidateRequest } from '../../protocol/index.js';
import { checkAccount, checkFilter } from '../boundary.js';
import { NO_CONTENT, handle } from '../handle.js';
import type { RouteKit } from './route-kit.js';

type Datalist = (
  ctx: Record<string, unknown>,
) => Promise<ReadonlyArray<{ title: string; value: string | number }>>;

/** `POST datalist` (values of a datalist filter) and `POST filter/validate`. */
export function mountDatalist({ router, app, options }: RouteKit): void {
  const sync = app.definition.sync;
  if (!sync) return;
  const datalists = (sync.datalists ?? {}) as Record<string, Datalist | undefined>;
  router.post(
    PROTOCOL_PATHS.datalist,
    handle(app, options, 'datalist', datalistRequest, async (body, scope) => {
      // Own properties only: a field named `constructor` or `__proto__` is just unknown.
      const list = Object.hasOwn(datalists, body.field) ? datalists[body.field] : undefined;
      if (typeof list !== 'function')
        throw new NotFoundError(`"${clip(body.field)}" is not a datalist filter of this app`);
      const account = checkAccount(app, body.account);
      const items = await list({
        account,
        dependsOn: body.dependsOn ?? {},
        types: body.types ?? [],
        signal: scope.signal,
        log: scope.log,
      });
      if (!Array.isArray(items))
        throw new WeftError(`The datalist handler of "${clip(body.field)}" must return an array`);
      return { items: items.map((item) => ({ title: String(item.title), value: String(item.value) })) };
    }),
  );
  router.post(
    PROTOCOL_PATHS.filterValidate,
    handle(app, options, 'filter/validate', filterValidateRequest, async (body, scope) => {
      const account = checkAccount(app, body.account);
      const filter = checkFilter(app, body.filter);
      await sync.validateFilter?.({
        account,
        filter,
        types: body.types ?? [],
        signal: scope.signal,
        log: scope.log,
      });
      return NO_CONTENT;
    }),
  );
}
