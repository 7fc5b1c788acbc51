import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { WeftError } from '../../errors/errors.js';
import { PROTOCOL_PATHS, resourceRequest } from '../../protocol/index.js';
import { checkAccount, checkFilter } from '../boundary.js';
import { handle } from '../handle.js';
import type { RouteKit } from './route-kit.js';

/** `POST resource`: streams a file referenced as `app://resource?...`, without buffering it. */
export function mountResource({ router, app, options }: RouteKit): void {
  const resource = app.definition.sync?.resource;
  if (!resource) return;
  router.post(
    PROTOCOL_PATHS.resource,
    handle(app, options, 'resource', resourceRequest, async (body, scope, _req, res) => {
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
      res.status(200).type(file.contentType ?? 'application/octet-stream');
      if (file.size !== undefined) res.setHeader('Content-Length', String(file.size));
      if (file.fileName) res.attachment(file.fileName);
      const source =
        typeof file.body === 'string' || file.body instanceof Uint8Array
          ? Readable.from([file.body])
          : file.body instanceof Readable
            ? file.body
            : Readable.fromWeb(file.body as WebReadableStream<Uint8Array>);
      // Once headers are out an error can only cut the stream; pipeline destroys both ends.
      await pipeline(source, res);
      return undefined;
    }),
  );
}
