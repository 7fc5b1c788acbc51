import { BadRequestError, NotFoundError, WeftError } from '../../errors/errors.js';
import { clip } from '../../logging/clip.js';
import { BadItemError, cutPage } from '../../paging/cut-page.js';
import { sendPage } from '../../paging/send-page.js';
import { decodePageState, encodePageState } from '../../paging/page-state.js';
import { PROTOCOL_PATHS, dataRequest } from '../../protocol/index.js';
import { checkAccount, checkFilter } from '../boundary.js';
import { handle, requestFacts } from '../handle.js';
import { withLazySignal } from '../request-context.js';
import type { RouteKit } from './route-kit.js';

/**
 * `POST data`: one page of one type. The handler is restarted from the cursor carried in
 * `pagination`, so any replica can serve any page.
 */
export function mountData({ router, app, options }: RouteKit): void {
  if (!app.definition.sync) return;
  const validateFilter = app.definition.sync.validateFilter;
  router.post(
    PROTOCOL_PATHS.data,
    handle(app, options, 'data', dataRequest, async (body, scope, _req, res) => {
      const facts = requestFacts(res);
      facts.requestedType = body.requestedType;
      if (body.operationId) facts.operationId = body.operationId;
      const resolver = app.accountConfig;
      const known = app.types.get(body.requestedType);
      // An unknown type is a 404 before the account is looked at, unless the account may define it.
      if (!known && !resolver.hasTypes) throw new NotFoundError(`Unknown type "${clip(body.requestedType)}"`);
      const account = checkAccount(app, body.account);
      const filter = resolver.hasFilters
        ? await resolver.checkFilter(account, body.filter, scope)
        : checkFilter(app, body.filter);
      const type = known ?? (await resolver.findType(body.requestedType, account, filter, scope));
      if (!type) throw new NotFoundError(`Unknown type "${clip(body.requestedType)}"`);
      const state = decodePageState(type.id, body.pagination, options.pageKeys);
      if (typeof state === 'string') throw new BadRequestError(state);
      // The app's own filter rules, before a sync starts; later pages reuse the checked filter.
      if (body.pagination == null) {
        await validateFilter?.({
          account,
          filter,
          types: body.types ?? [type.id],
          signal: scope.signal,
          log: scope.log,
        });
      }
      const lastSynchronizedAt = parseTimestamp(body.lastSynchronizedAt);
      const mode = type.delta && lastSynchronizedAt ? 'delta' : 'full';
      const stream = type.definition.data(
        withLazySignal(scope, {
          account,
          filter,
          requestedType: type.id,
          types: body.types ?? [type.id],
          mode,
          lastSynchronizedAt,
          since:
            mode === 'delta' && lastSynchronizedAt
              ? new Date(lastSynchronizedAt.getTime() - type.safetyMarginMs)
              : null,
          operationId: body.operationId ?? undefined,
          cursor: state.cursor,
          log: scope.log,
        }),
      );
      if (!stream || typeof (stream as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') {
        throw new WeftError(`The data handler of type "${type.id}" must be an async generator`);
      }
      let page: Awaited<ReturnType<typeof cutPage>>;
      try {
        page = await cutPage(stream, { pageSize: type.pageSize, state, mode, type: type.id });
      } catch (error) {
        if (error instanceof BadItemError) throw new WeftError(error.message);
        throw error;
      }
      const served = { type, state, page, log: scope.log, operationId: body.operationId ?? undefined };
      return sendPage(
        res,
        { ...served, replayWarningPages: options.replayWarningPages },
        {
          items: type.serialize(page.items),
          pagination: page.next
            ? { hasNext: true, nextPageConfig: encodePageState(type.id, page.next, options.pageKeys) }
            : { hasNext: false },
          synchronizationType: mode,
        },
      );
    }),
  );
}

function parseTimestamp(value: string | number | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new BadRequestError('Invalid request: "lastSynchronizedAt" is not a timestamp');
  return date;
}
