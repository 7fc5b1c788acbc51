import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookSignatureError } from '../errors/errors.js';

/** Hash algorithms accepted for HMAC webhook signatures. */
export type HmacAlgorithm = 'sha256' | 'sha1' | 'sha512';

/** How the signature is written in the header. */
export type SignatureEncoding = 'hex' | 'base64';

/** Options shared by {@link signHmac} and {@link verifyHmacSignature}. */
export interface HmacOptions {
  /** The shared secret agreed with the third party. */
  secret: string | Buffer;
  /** The request body exactly as received (before any JSON parsing). */
  rawBody: Buffer | string;
  /** Hash algorithm; default `sha256`. */
  algorithm?: HmacAlgorithm;
  /** Encoding of the digest in the header; default `hex`. */
  encoding?: SignatureEncoding;
  /** Text before the digest in the header, e.g. `sha256=` (GitHub). */
  prefix?: string;
  /**
   * Timestamp of the event in seconds since the epoch, when the sender signs one (Stripe, Slack).
   * When given it is part of the signed payload and checked against the replay window.
   */
  timestamp?: string | number | undefined;
  /**
   * Builds the string that is signed. Default: the body, or `${timestamp}.${body}` when a
   * timestamp is given.
   */
  signedPayload?: (rawBody: string, timestamp?: string) => string;
}

/** Options of {@link verifyHmacSignature}. */
export interface VerifyHmacOptions extends HmacOptions {
  /** The signature header as received; `undefined` when the header is missing. */
  signature: string | undefined;
  /** Largest accepted distance between `timestamp` and now, in seconds; default 300. */
  toleranceSeconds?: number;
  /** Current time in milliseconds since the epoch; default `Date.now`. For tests. */
  now?: () => number;
}

const DIGEST_BYTES: Record<HmacAlgorithm, number> = { sha1: 20, sha256: 32, sha512: 64 };

function payloadOf(options: HmacOptions): string {
  const body = typeof options.rawBody === 'string' ? options.rawBody : options.rawBody.toString('utf8');
  const timestamp = options.timestamp === undefined ? undefined : String(options.timestamp);
  if (options.signedPayload) return options.signedPayload(body, timestamp);
  return timestamp === undefined ? body : `${timestamp}.${body}`;
}

function digest(options: HmacOptions): Buffer {
  const hmac = createHmac(options.algorithm ?? 'sha256', options.secret);
  // Sign the exact bytes when no custom payload or timestamp is involved.
  if (!options.signedPayload && options.timestamp === undefined && Buffer.isBuffer(options.rawBody)) {
    hmac.update(options.rawBody);
  } else {
    hmac.update(payloadOf(options), 'utf8');
  }
  return hmac.digest();
}

/**
 * Computes the HMAC signature header value for a payload, e.g. `sha256=5d41...` with
 * `prefix: 'sha256='`. Use it to sign outgoing webhooks, or in tests to build valid events.
 */
export function signHmac(options: HmacOptions): string {
  return `${options.prefix ?? ''}${digest(options).toString(options.encoding ?? 'hex')}`;
}

function decode(value: string, encoding: SignatureEncoding): Buffer | undefined {
  if (encoding === 'hex') {
    if (!/^[0-9a-fA-F]+$/.test(value) || value.length % 2 !== 0) return undefined;
    return Buffer.from(value, 'hex');
  }
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return undefined;
  return Buffer.from(value, 'base64');
}

/**
 * Checks an HMAC webhook signature over the raw request body. Throws `WebhookSignatureError`
 * (401) when the signature is missing, malformed, does not match, or when the timestamp lies
 * outside the replay window, and for every request when `secret` is empty (an unset secret must
 * not turn into a key anyone can sign with). The comparison is constant-time. Error messages never contain the
 * secret or the expected signature.
 *
 * @example
 * verifyHmacSignature({ secret, rawBody, signature: req.get('x-hub-signature-256'), prefix: 'sha256=' });
 */
export function verifyHmacSignature(options: VerifyHmacOptions): void {
  // An empty key signs nothing: anyone can compute its HMAC. A missing configured secret
  // (an unset environment variable read as '') must refuse every event, not accept forged ones.
  if (options.secret === undefined || options.secret === null || options.secret.length === 0) {
    throw new WebhookSignatureError('Webhook secret is not configured: every event is refused');
  }
  const algorithm = options.algorithm ?? 'sha256';
  const encoding = options.encoding ?? 'hex';
  const { signature } = options;
  if (signature === undefined || signature.trim() === '') {
    throw new WebhookSignatureError('Webhook signature is missing');
  }
  let value = signature.trim();
  const prefix = options.prefix ?? '';
  if (prefix) {
    if (!value.startsWith(prefix)) {
      throw new WebhookSignatureError(
        `Webhook signature is malformed: expected it to start with "${prefix}"`,
      );
    }
    value = value.slice(prefix.length);
  }
  const given = decode(value, encoding);
  if (!given || given.length !== DIGEST_BYTES[algorithm]) {
    throw new WebhookSignatureError(
      `Webhook signature is malformed: expected a ${encoding} ${algorithm} digest`,
    );
  }

  if (options.timestamp !== undefined) {
    const seconds = Number(options.timestamp);
    if (!Number.isFinite(seconds) || String(options.timestamp).trim() === '') {
      throw new WebhookSignatureError('Webhook timestamp is malformed');
    }
    const tolerance = options.toleranceSeconds ?? 300;
    const nowSeconds = (options.now ?? Date.now)() / 1000;
    if (seconds < nowSeconds - tolerance) {
      throw new WebhookSignatureError(
        `Webhook timestamp is older than ${tolerance} seconds (possible replay)`,
      );
    }
    if (seconds > nowSeconds + tolerance) {
      throw new WebhookSignatureError(`Webhook timestamp is more than ${tolerance} seconds in the future`);
    }
  }

  const expected = digest(options);
  // Lengths are equal here (checked against the algorithm's digest size above).
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new WebhookSignatureError('Webhook signature does not match the payload');
  }
}
