import bytes from 'bytes';
import express, { type Request, type RequestHandler } from 'express';
import { checkJsonDepth, JsonDepthScan } from './json-depth.js';

/** A body the reader refused, in body-parser's error shape (which the error answer knows). */
export class BodyReadError extends Error {
  readonly expose = true;
  constructor(
    message: string,
    readonly status: number,
    readonly type: string,
  ) {
    super(message);
  }
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

export interface JsonBodyOptions {
  /** the largest body read, in bytes or as text (`'1mb'`) */
  limit: string | number;
  /** how deep the body may nest (see checkJsonDepth) */
  maxDepth: number;
  /**
   * Parse only bodies labelled `application/json` (body-parser's default), leaving any other
   * unread and `req.body` undefined. Without it every body is read as JSON, whatever its label,
   * as the service's requests to an app are.
   */
  jsonOnly?: boolean;
}

/**
 * A JSON body parser with the depth check, for one size limit. The service's requests are small,
 * declared-length, uncompressed UTF-8 JSON: those are read here, straight from the socket into
 * one `JSON.parse`, which is what body-parser ends up doing after its general-purpose work
 * per request (content-type parsing, charset tables, a decoding stream, its own listeners and
 * error objects), measured as several µs of a one-item data request. Anything else (a content
 * coding, a charset or other content-type parameter, chunked transfer, a declared length over
 * the limit) goes to body-parser, which gives it the answers it always did (415, 413, 400).
 */
export function jsonBody(options: JsonBodyOptions): RequestHandler {
  const limit = typeof options.limit === 'number' ? options.limit : bytes.parse(options.limit);
  if (limit === null || !(limit >= 0)) throw new TypeError(`Invalid body limit: ${String(options.limit)}`);
  const jsonOnly = options.jsonOnly === true;
  const general = express.json({
    limit,
    // body-parser's own default: only bodies labelled JSON are parsed, the others left unread.
    type: jsonOnly ? 'application/json' : () => true,
    verify: (_req: unknown, _res: unknown, buffer: Buffer) => checkJsonDepth(buffer, options.maxDepth),
  });
  return (req, res, next) => {
    const headers = req.headers;
    const declared = headers['content-length'];
    if (declared === undefined && headers['transfer-encoding'] === undefined) {
      // No body (a GET): as body-parser leaves it.
      next();
      return;
    }
    const length = declared === undefined ? Number.NaN : Number(declared);
    const contentType = headers['content-type'];
    const encoding = headers['content-encoding'];
    if (
      !(length <= limit) ||
      headers['transfer-encoding'] !== undefined ||
      (encoding !== undefined && encoding.toLowerCase() !== 'identity') ||
      contentType?.includes(';') ||
      (jsonOnly && contentType !== 'application/json') ||
      req.body !== undefined ||
      !req.readable
    ) {
      general(req, res, next);
      return;
    }
    new BodyReader(req, length, options.maxDepth, next).start();
  };
}

/**
 * Reads exactly `length` bytes of the request (an early end is a 400, as body-parser has it)
 * and parses them into `req.body`. A class, not closures: this runs on every request, and under
 * tsx (which runs the apps here) every arrow function made in a function body is also named at
 * run time.
 */
class BodyReader {
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private settled = false;
  /** the depth check, made on each chunk as it comes, while the next one is on its way */
  private readonly depth: JsonDepthScan;
  /** what the depth check refused, answered once the whole body is read (as before) */
  private tooDeep: unknown;

  constructor(
    private readonly req: Request,
    private readonly length: number,
    maxDepth: number,
    private readonly next: (error?: unknown) => void,
  ) {
    this.depth = new JsonDepthScan(maxDepth);
    this.onData = this.onData.bind(this);
    this.onEnd = this.onEnd.bind(this);
    this.onAbort = this.onAbort.bind(this);
  }

  start(): void {
    const req = this.req;
    req.on('data', this.onData);
    req.on('end', this.onEnd);
    req.on('error', this.onAbort);
    req.on('close', this.onAbort);
  }

  private onData(chunk: Buffer): void {
    this.received += chunk.length;
    this.chunks.push(chunk);
    if (this.tooDeep !== undefined) return;
    try {
      this.depth.feed(chunk);
    } catch (error) {
      this.tooDeep = error;
    }
  }

  private onEnd(): void {
    if (this.received !== this.length) {
      this.finish(
        new BodyReadError('request size did not match content length', 400, 'request.size.invalid'),
      );
      return;
    }
    const chunks = this.chunks;
    this.finish(undefined, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, this.received));
  }

  private onAbort(): void {
    this.finish(new BodyReadError('request aborted', 400, 'request.aborted'));
  }

  private finish(error?: Error, body?: Buffer): void {
    if (this.settled) return;
    this.settled = true;
    const req = this.req;
    req.off('data', this.onData);
    req.off('end', this.onEnd);
    req.off('error', this.onAbort);
    req.off('close', this.onAbort);
    if (error) {
      this.next(error);
      return;
    }
    if (this.tooDeep !== undefined) {
      this.next(this.tooDeep);
      return;
    }
    try {
      req.body = parse(body!);
    } catch (thrown) {
      this.next(thrown);
      return;
    }
    this.next();
  }
}

/** body-parser's strict JSON (its bytes already depth-checked): a leading BOM dropped, an object or array. */
function parse(body: Buffer): unknown {
  let start = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  // An empty body is taken as {}: a common client mistake, as body-parser has it.
  if (start === body.length) return {};
  while (start < body.length && WHITESPACE.has(body[start]!)) start += 1;
  const first = body[start];
  if (first !== 0x7b && first !== 0x5b)
    throw new BodyReadError('Unexpected token', 400, 'entity.parse.failed');
  try {
    return JSON.parse(body.toString('utf8', start));
  } catch (error) {
    throw new BodyReadError((error as Error).message, 400, 'entity.parse.failed');
  }
}
