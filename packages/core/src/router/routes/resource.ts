import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { WeftError } from '../../errors/errors.js';
import { PROTOCOL_PATHS, resourceRequest } from '../../protocol/index.js';
import { checkAccount, checkFilter } from '../boundary.js';
import { handle, streamAnswer } from '../handle.js';
import type { RouteKit } from './route-kit.js';

/** `POST resource`: streams a file referenced as `app://resource?...`, without buffering it. */
export function mountResource({ router, app, options }: RouteKit): void {
  const resource = app.definition.sync?.resource;
  if (!resource) return;
  router.post(
    PROTOCOL_PATHS.resource,
    handle(app, options, 'resource', resourceRequest, async (body, scope) => {
      const file = await resource({
        account: checkAccount(app, body.account),
        filter: checkFilter(app, body.filter),
        types: body.types ?? [],
        params: body.params,
        signal: scope.signal,
        log: scope.log,
      });
      if (!file || file.body === undefined || file.body === null) {
        throw new WeftError('The resource handler must return `{ body }`');
      }
      const headers: Record<string, string> = {
        'Content-Type': file.contentType ?? 'application/octet-stream',
      };
      if (file.size !== undefined) headers['Content-Length'] = String(file.size);
      const source =
        typeof file.body === 'string' || file.body instanceof Uint8Array
          ? Readable.from([file.body])
          : file.body instanceof Readable
            ? file.body
            : Readable.fromWeb(file.body as WebReadableStream<Uint8Array>);
      return streamAnswer(source, headers, file.fileName);
    }),
  );
}
