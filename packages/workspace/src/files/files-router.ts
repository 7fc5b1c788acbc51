import busboy from 'busboy';
import { type Request, Router } from 'express';
import { z } from 'zod';
import { principalOf } from '../auth/authenticate.js';
import type { Principal } from '../auth/principal.js';
import type { Driver } from '../db/driver.js';
import { badRequest, WorkspaceError } from '../errors.js';
import {
  type OutboundPolicy,
  OutboundTooLargeError,
  outboundCause,
  outboundFetch,
} from '../outbound/index.js';
import { downloadType } from './download-type.js';
import { ChunkWriter, createFileEntity, type FileRecord, findFile, readChunks } from './file-store.js';
import { FileTooLargeError, MAX_FILE_BYTES, storeStream } from './store-stream.js';

export { MAX_FILE_BYTES } from './store-stream.js';

// Headers a from-url call may not send to the source: those that frame or route the request
// (Host, hop-by-hop, proxy and forwarding headers) or speak to cloud metadata services. Any other
// header is the caller's business with that source (an API key, Accept, ...), as the spec has it;
// Authorization and Cookie are dropped when a redirect leaves the source's origin.
const REFUSED_HEADER =
  /^(host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|forwarded|x-real-ip|metadata-flavor|x-google-metadata-request|proxy-.*|x-forwarded-.*)$/i;

const FromUrl = z.object({
  url: z.string().refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), 'url must be an http(s) address'),
  name: z.string().min(1).max(500).optional(),
  method: z
    .string()
    .refine((m) => m.toUpperCase() === 'GET', 'method may only be GET')
    .optional(),
  headers: z
    .record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'a header name'), z.string().max(8192))
    .refine((h) => Object.keys(h).length <= 50, 'at most 50 headers')
    .superRefine((h, ctx) => {
      for (const name of Object.keys(h))
        if (REFUSED_HEADER.test(name))
          ctx.addIssue({
            code: 'custom',
            message: `header ${name.slice(0, 60)} may not be sent to the source`,
          });
    })
    .optional(),
});

/** The file's name from the URL's last path segment, as written when it is not a valid escape. */
function nameFromUrl(url: string): string {
  const segment = new URL(url).pathname.split('/').pop() ?? '';
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {}
  return name.slice(0, 500) || 'file';
}

/** Creates the file's entity; a failure leaves no chunks behind. */
async function recordFile(
  driver: Driver,
  user: Principal,
  writer: ChunkWriter,
  name: string,
  type: string,
): Promise<FileRecord> {
  try {
    return await createFileEntity(driver, user, writer.secret, name, type, writer.total);
  } catch (error) {
    await writer.discard().catch(() => {});
    throw error;
  }
}

export interface FilesRouterOptions {
  /** the largest file an upload may hold, in bytes; default MAX_FILE_BYTES */
  maxFileBytes?: number;
}

function receiveMultipart(
  driver: Driver,
  req: Request,
  maxBytes: number,
): Promise<{ writer: ChunkWriter; name: string; type: string }> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      // busboy marks a file truncated once it reaches `fileSize` bytes, even when it ends there:
      // one byte more, so a file of exactly the limit is kept and only a larger one is refused.
      bb = busboy({ headers: req.headers, limits: { fileSize: maxBytes + 1, files: 1 } });
    } catch {
      reject(badRequest('Send multipart/form-data with a part named file'));
      return;
    }
    let found: Promise<{ writer: ChunkWriter; name: string; type: string }> | undefined;
    bb.on('file', (field, stream, info) => {
      if (field !== 'file' || found) {
        stream.resume();
        return;
      }
      const writer = new ChunkWriter(driver);
      found = (async () => {
        try {
          for await (const data of stream) await writer.write(data as Buffer);
          if ((stream as unknown as { truncated?: boolean }).truncated) {
            throw new WorkspaceError(413, 'bad-request', `A file may hold at most ${maxBytes} bytes`);
          }
          await writer.end();
          return { writer, name: info.filename || 'file', type: info.mimeType || 'application/octet-stream' };
        } catch (error) {
          await writer.discard().catch(() => {});
          throw error;
        }
      })();
      found.catch(() => {});
    });
    bb.on('error', () => reject(badRequest('Malformed multipart body')));
    bb.on('close', () => {
      if (!found) reject(badRequest('The multipart body has no part named file'));
      else found.then(resolve, reject);
    });
    req.pipe(bb);
  });
}

/** A failure to fetch or read the source as a client error; the source's own words are never shown. */
function sourceError(error: unknown, maxBytes: number): WorkspaceError {
  if (error instanceof WorkspaceError) return error;
  const cause = outboundCause(error);
  if (cause instanceof OutboundTooLargeError || error instanceof FileTooLargeError)
    return new WorkspaceError(413, 'bad-request', `The file is larger than ${maxBytes} bytes`);
  if (cause) return badRequest(cause.message);
  return badRequest('The source address could not be reached');
}

export function filesRouter(
  driver: Driver,
  outbound: OutboundPolicy,
  options: FilesRouterOptions = {},
): Router {
  const router = Router();
  const maxBytes = options.maxFileBytes ?? MAX_FILE_BYTES;
  router.post('/api/files', async (req, res) => {
    const user = principalOf(res);
    const { writer, name, type } = await receiveMultipart(driver, req, maxBytes);
    res.json(await recordFile(driver, user, writer, name, type));
  });
  router.post('/api/files/from-url', async (req, res) => {
    const user = principalOf(res);
    const parsed = FromUrl.safeParse(req.body);
    if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => i.message).join('; '));
    const { url, headers } = parsed.data;
    // Everything that can be refused is settled before a byte is stored.
    const fileName = parsed.data.name ?? nameFromUrl(url);
    let response: Response;
    try {
      response = await outboundFetch(outbound, url, { headers: headers ?? {}, maxBytes });
    } catch (error) {
      throw sourceError(error, maxBytes);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel().catch(() => {});
      throw badRequest(`The source address answered HTTP ${response.status}`);
    }
    const contentType = response.headers.get('content-type') ?? 'application/octet-stream';
    const writer = await storeStream(
      driver,
      response.body as unknown as AsyncIterable<Uint8Array>,
      maxBytes,
    ).catch((error) => {
      throw sourceError(error, maxBytes);
    });
    res.json(await recordFile(driver, user, writer, fileName, contentType));
  });
  router.get('/api/files/:secret', async (req, res) => {
    const file = await findFile(driver, req.params.secret, principalOf(res));
    // Always a download, never a page: a type a browser could run is served as opaque bytes, and
    // a sandbox keeps even an opened file from running script in the workspace's origin.
    res.setHeader('Content-Type', downloadType(file.contentType));
    res.setHeader('Content-Length', String(file.size));
    res.setHeader('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`);
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    for await (const chunk of readChunks(driver, req.params.secret)) {
      if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
    }
    res.end();
  });
  return router;
}
