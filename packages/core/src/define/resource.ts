import type { Readable } from 'node:stream';
import type { Logger } from '../logging/logger.js';

export interface ResourceContext<A, F> {
  account: A;
  filter: F;
  types: readonly string[];
  /** The query parameters of the `app://resource?...` reference. */
  params: Record<string, unknown>;
  signal: AbortSignal;
  log: Logger;
}

/** A file to stream back. Bodies are piped, never buffered whole. */
export interface ResourceResult {
  body: Readable | ReadableStream<Uint8Array> | Uint8Array | string;
  contentType?: string;
  /** Sent as `Content-Disposition` filename. */
  fileName?: string;
  /** Sent as `Content-Length` when known. */
  size?: number;
}

/** Serves files referenced as `app://resource?...` in file fields. */
export type ResourceHandler<A, F> = (ctx: ResourceContext<A, F>) => Promise<ResourceResult>;
