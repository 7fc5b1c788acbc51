import {
  type OutboundPolicy,
  OutboundTooLargeError,
  outboundCause,
  outboundFetch,
} from '../outbound/index.js';

// The one place where a script's services reach the network (the `http` service and
// `svc.addFileFromUrl`), under the workspace's outbound policy like every fetch made on a user's
// behalf (private and loopback addresses refused unless allowed, each redirect checked again).
// The answer's body is read as a stream and counted: past the limit the request is aborted (the
// connection closed) instead of the rest being read, so a script can never make the workspace
// hold more than the limit of one answer.

export interface ScriptFetchLimits {
  /** the most bytes of body read; past it the request is aborted and reading fails */
  maxBytes: number;
  /** the whole request, the body included */
  timeoutMs: number;
  /** the message of the error when the body passes maxBytes */
  tooLarge: string;
}

export interface ScriptFetchInit {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
}

export interface ScriptResponse {
  status: number;
  headers: Headers;
  /** the body's chunks, at most limits.maxBytes in all; iterate it once */
  body: AsyncIterable<Uint8Array>;
  /** closes the connection without reading the body */
  close(): void;
}

export async function scriptFetch(
  policy: OutboundPolicy,
  url: string,
  init: ScriptFetchInit,
  limits: ScriptFetchLimits,
): Promise<ScriptResponse> {
  const abort = new AbortController();
  const res = await outboundFetch(policy, url, {
    method: init.method,
    headers: init.headers,
    ...(init.body !== undefined ? { body: init.body } : {}),
    // one more byte than allowed, so that the count below (with its own message) decides
    maxBytes: limits.maxBytes + 1,
    timeoutMs: limits.timeoutMs,
    signal: abort.signal,
  });
  async function* body(): AsyncGenerator<Uint8Array> {
    let read = 0;
    let complete = false;
    try {
      if (res.body)
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          read += chunk.byteLength;
          if (read > limits.maxBytes) throw new Error(limits.tooLarge);
          yield chunk;
        }
      complete = true;
    } catch (error) {
      // A declared length over the limit fails the policy's stream before any byte: same words.
      if (outboundCause(error) instanceof OutboundTooLargeError) throw new Error(limits.tooLarge);
      throw error;
    } finally {
      // Stopped early (too large, or the reader gave up): close the connection rather than drain it.
      if (!complete) abort.abort();
    }
  }
  return { status: res.status, headers: res.headers, body: body(), close: () => abort.abort() };
}

/** The whole body of a response as one buffer (bounded by the limits it was fetched with). */
export async function readAll(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}
