import type { Queryable } from '../db/driver.js';
import { WorkspaceError } from '../errors.js';
import { ChunkWriter } from './file-store.js';

// One way into file storage for every byte stream (uploads from a URL, files synced by the app
// host): chunks are stored as they arrive, so a large file is never held whole in memory, and a
// stream that fails or grows past the limit leaves no chunks behind.

export const MAX_FILE_BYTES = 100 * 1024 * 1024;

export class FileTooLargeError extends WorkspaceError {
  constructor(limit: number) {
    super(413, 'bad-request', `A file may hold at most ${limit} bytes`);
  }
}

/** Stores the stream's bytes as file chunks; returns the writer (its `secret` and `total`). */
export async function storeStream(
  q: Queryable,
  body: AsyncIterable<Uint8Array>,
  maxBytes = MAX_FILE_BYTES,
): Promise<ChunkWriter> {
  const writer = new ChunkWriter(q);
  try {
    for await (const data of body) {
      await writer.write(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      if (writer.total > maxBytes) throw new FileTooLargeError(maxBytes);
    }
    await writer.end();
    return writer;
  } catch (error) {
    await writer.discard().catch(() => {});
    throw error;
  }
}
