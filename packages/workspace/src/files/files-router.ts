import busboy from 'busboy';
import { type Request, Router } from 'express';
import { z } from 'zod';
import { principalOf } from '../auth/authenticate.js';
import type { Driver } from '../db/driver.js';
import { badRequest, WorkspaceError } from '../errors.js';
import { downloadType } from './download-type.js';
import { ChunkWriter, createFileEntity, type FileRecord, findFile, readChunks } from './file-store.js';
import { MAX_FILE_BYTES, storeStream } from './store-stream.js';

export { MAX_FILE_BYTES } from './store-stream.js';

const FromUrl = z.object({
  url: z.string().refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), 'url must be an http(s) address'),
  name: z.string().min(1).max(500).optional(),
  method: z
    .string()
    .regex(/^[A-Za-z]+$/)
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

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

export function filesRouter(driver: Driver, options: FilesRouterOptions = {}): Router {
  const router = Router();
  const maxBytes = options.maxFileBytes ?? MAX_FILE_BYTES;
  router.post('/api/files', async (req, res) => {
    const user = principalOf(res);
    const { writer, name, type } = await receiveMultipart(driver, req, maxBytes);
    const record: FileRecord = await createFileEntity(driver, user, writer.secret, name, type, writer.total);
    res.json(record);
  });
  router.post('/api/files/from-url', async (req, res) => {
    const user = principalOf(res);
    const parsed = FromUrl.safeParse(req.body);
    if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => i.message).join('; '));
    const { url, name, method = 'GET', headers } = parsed.data;
    let response: Response;
    try {
      response = await fetch(url, {
        method: method.toUpperCase(),
        headers,
        signal: AbortSignal.timeout(30_000),
      });
    } catch {
      throw badRequest('The source address could not be reached');
    }
    if (!response.ok || !response.body)
      throw badRequest(`The source address answered HTTP ${response.status}`);
    const writer = await storeStream(
      driver,
      response.body as unknown as AsyncIterable<Uint8Array>,
      MAX_FILE_BYTES,
    ).catch((error) => {
      throw error instanceof WorkspaceError && error.status === 413
        ? new WorkspaceError(413, 'bad-request', 'The file is too large')
        : error;
    });
    const fileName = name ?? (decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || 'file');
    const contentType = response.headers.get('content-type') ?? 'application/octet-stream';
    res.json(await createFileEntity(driver, user, writer.secret, fileName, contentType, writer.total));
  });
  router.get('/api/files/:secret', async (req, res) => {
    const file = await findFile(driver, req.params.secret);
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
