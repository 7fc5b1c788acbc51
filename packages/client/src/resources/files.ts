// Files: upload (multipart, part `file`) from a path, a Buffer or a stream; import from a URL;
// download as a stream; attach to and detach from an entity's `Files/Files`.
import { randomUUID } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { ClientContext } from './context.js';
import { collectionArgs } from './entities.js';

export interface StoredFile {
  'svc/id': string;
  'svc/name': string;
  'svc/content-type': string;
  'svc/secret': string;
  /** The size in bytes, as the service's upload answers it (absent from older workspaces). */
  'svc/content-length'?: number;
}

export type UploadSource =
  | string
  | Buffer
  | Uint8Array
  | Readable
  | WebReadableStream<Uint8Array>
  | ReadableStream<Uint8Array>;

export interface UploadOptions {
  /** File name stored (default: the path's base name, else `file`). */
  name?: string;
  contentType?: string;
}

export interface FromUrlInput {
  url: string;
  name?: string;
  method?: string;
  /** Sent to the source address only (for example its own authorization). */
  headers?: Record<string, string>;
}

export function filesApi(ctx: ClientContext) {
  return {
    /**
     * Uploads a file. A path or a Buffer can be sent again if the service asks to slow down; a
     * stream can be read only once, so a refused stream upload fails with a retryable error.
     */
    async upload(source: UploadSource, options: UploadOptions = {}): Promise<StoredFile> {
      const name = options.name ?? (typeof source === 'string' ? basename(source) : 'file');
      const contentType = options.contentType ?? 'application/octet-stream';
      let body: {
        make: () => { body: NonNullable<RequestInit['body']>; contentType?: string };
        replayable: boolean;
      };
      if (typeof source === 'string' || source instanceof Uint8Array) {
        const blob =
          typeof source === 'string'
            ? await openAsBlob(source, { type: contentType })
            : new Blob([source as Uint8Array<ArrayBuffer>], { type: contentType });
        body = {
          replayable: true,
          make: () => {
            const form = new FormData();
            form.append('file', blob, name);
            return { body: form };
          },
        };
      } else {
        const stream =
          source instanceof Readable ? source : Readable.fromWeb(source as WebReadableStream<Uint8Array>);
        body = { replayable: false, make: () => multipartStream(stream, name, contentType) };
      }
      return storedFile(
        ctx,
        ctx.transport.json({ method: 'POST', path: '/api/files', body, idempotent: false }),
      );
    },

    /** The service fetches the file from `url` and stores it. */
    fromUrl(input: FromUrlInput): Promise<StoredFile> {
      return storedFile(
        ctx,
        ctx.transport.json({
          method: 'POST',
          path: '/api/files/from-url',
          json: input,
          idempotent: false,
        }),
      );
    },

    /** The file's content as a Node stream (read it, or pipe it to disk). */
    async download(secret: string): Promise<Readable> {
      const response = await ctx.transport.send({
        method: 'GET',
        path: `/api/files/${encodeURIComponent(secret)}`,
        idempotent: true,
      });
      if (!response.body) return Readable.from([]);
      return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    },

    /** Links uploaded files (by `svc/id`) to an entity whose type has the files mixin. */
    attach(type: string, id: string, fileIds: string[]): Promise<void> {
      return ctx.channel
        .run({
          command: 'svc.entity/add-collection-items',
          args: collectionArgs(type, id, 'Files/Files', fileIds),
        })
        .then(() => undefined);
    },
    detach(type: string, id: string, fileIds: string[]): Promise<void> {
      return ctx.channel
        .run({
          command: 'svc.entity/remove-collection-items',
          args: collectionArgs(type, id, 'Files/Files', fileIds),
        })
        .then(() => undefined);
    },
  };
}

/** A multipart/form-data body with one part `file`, streamed without buffering the file. */
function multipartStream(
  source: Readable,
  name: string,
  contentType: string,
): { body: NonNullable<RequestInit['body']>; contentType: string } {
  const boundary = `weft-${randomUUID()}`;
  const safeName = name.replace(/["\r\n\\]/g, '_');
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\n` +
      `Content-Type: ${contentType.replace(/[\r\n]/g, '')}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* parts() {
    yield head;
    for await (const chunk of source)
      yield typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Uint8Array);
    yield tail;
  }
  return {
    body: Readable.toWeb(Readable.from(parts())) as unknown as NonNullable<RequestInit['body']>,
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** A stored file's record, in svc names whatever the workspace's namespace. */
async function storedFile(ctx: ClientContext, answer: Promise<unknown>): Promise<StoredFile> {
  const file = await answer;
  return (ctx.names ? ctx.names.in.entity('svc/file', file) : file) as StoredFile;
}
