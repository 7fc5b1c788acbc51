import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WebhookSignatureError } from '../errors/errors.js';
import { signHmac, verifyHmacSignature, type VerifyHmacOptions } from './signature.js';

const secret = 'whsec_test_secret_value';
const rawBody = Buffer.from('{"action":"opened","number":1}');

function rejection(options: VerifyHmacOptions): WebhookSignatureError {
  try {
    verifyHmacSignature(options);
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    const e = error as WebhookSignatureError;
    expect(e.status).toBe(401);
    expect(e.message).not.toContain(secret);
    return e;
  }
  throw new Error('expected verifyHmacSignature to throw');
}

describe('signHmac', () => {
  it('matches a plain node:crypto HMAC (hex, sha256)', () => {
    const expected = createHmac('sha256', secret).update(rawBody).digest('hex');
    expect(signHmac({ secret, rawBody })).toBe(expected);
    expect(signHmac({ secret, rawBody, prefix: 'sha256=' })).toBe(`sha256=${expected}`);
  });

  it('supports sha1, sha512 and base64', () => {
    expect(signHmac({ secret, rawBody, algorithm: 'sha1' })).toBe(
      createHmac('sha1', secret).update(rawBody).digest('hex'),
    );
    expect(signHmac({ secret, rawBody, algorithm: 'sha512', encoding: 'base64' })).toBe(
      createHmac('sha512', secret).update(rawBody).digest('base64'),
    );
  });
});

describe('verifyHmacSignature', () => {
  it('accepts a valid GitHub-style signature with prefix', () => {
    const signature = signHmac({ secret, rawBody, prefix: 'sha256=' });
    expect(() => verifyHmacSignature({ secret, rawBody, signature, prefix: 'sha256=' })).not.toThrow();
    // A string body with the same bytes verifies too.
    expect(() =>
      verifyHmacSignature({ secret, rawBody: rawBody.toString(), signature, prefix: 'sha256=' }),
    ).not.toThrow();
  });

  it('accepts base64 signatures and other algorithms', () => {
    for (const algorithm of ['sha1', 'sha256', 'sha512'] as const) {
      const signature = signHmac({ secret, rawBody, algorithm, encoding: 'base64' });
      expect(() =>
        verifyHmacSignature({ secret, rawBody, signature, algorithm, encoding: 'base64' }),
      ).not.toThrow();
    }
  });

  it('rejects a tampered body', () => {
    const signature = signHmac({ secret, rawBody });
    const e = rejection({ secret, rawBody: Buffer.from('{"action":"closed","number":1}'), signature });
    expect(e.message).toMatch(/does not match/);
    expect(e.message).not.toContain(signature);
  });

  it('rejects a signature made with the wrong secret', () => {
    const signature = signHmac({ secret: 'another-secret', rawBody });
    const expected = signHmac({ secret, rawBody });
    const e = rejection({ secret, rawBody, signature });
    expect(e.message).toMatch(/does not match/);
    expect(e.message).not.toContain(expected);
  });

  it('refuses every event when the secret is empty, even one signed with the empty key', () => {
    for (const empty of ['', Buffer.alloc(0)]) {
      const forged = createHmac('sha256', empty).update(rawBody).digest('hex');
      const e = rejection({ secret: empty, rawBody, signature: `sha256=${forged}`, prefix: 'sha256=' });
      expect(e.message).toBe('Webhook secret is not configured: every event is refused');
    }
  });

  it('rejects a missing signature', () => {
    expect(rejection({ secret, rawBody, signature: undefined }).message).toMatch(/missing/);
    expect(rejection({ secret, rawBody, signature: '' }).message).toMatch(/missing/);
  });

  it('rejects malformed signatures', () => {
    const good = signHmac({ secret, rawBody });
    expect(rejection({ secret, rawBody, signature: 'not-hex!' }).message).toMatch(/malformed/);
    expect(rejection({ secret, rawBody, signature: good.slice(0, 10) }).message).toMatch(/malformed/);
    expect(rejection({ secret, rawBody, signature: `${good}00` }).message).toMatch(/malformed/);
    expect(rejection({ secret, rawBody, signature: good, prefix: 'sha256=' }).message).toMatch(/sha256=/);
    expect(rejection({ secret, rawBody, signature: 'sha1=abcd', prefix: 'sha256=' }).message).toMatch(
      /malformed/,
    );
    expect(rejection({ secret, rawBody, signature: '@@@', encoding: 'base64' }).message).toMatch(/malformed/);
  });

  describe('timestamped (Stripe-style) signatures', () => {
    const now = () => 1_790_000_000_000;
    const timestamp = 1_790_000_000;

    it('signs timestamp.body and accepts it within the window', () => {
      const signature = signHmac({ secret, rawBody, timestamp });
      expect(signature).toBe(createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex'));
      expect(() => verifyHmacSignature({ secret, rawBody, signature, timestamp, now })).not.toThrow();
      expect(() =>
        verifyHmacSignature({ secret, rawBody, signature, timestamp: String(timestamp), now }),
      ).not.toThrow();
    });

    it('rejects a stale timestamp (replay)', () => {
      const old = timestamp - 301;
      const signature = signHmac({ secret, rawBody, timestamp: old });
      expect(rejection({ secret, rawBody, signature, timestamp: old, now }).message).toMatch(
        /older than 300/,
      );
    });

    it('rejects a timestamp in the future', () => {
      const future = timestamp + 301;
      const signature = signHmac({ secret, rawBody, timestamp: future });
      expect(rejection({ secret, rawBody, signature, timestamp: future, now }).message).toMatch(/future/);
    });

    it('honours toleranceSeconds', () => {
      const old = timestamp - 1000;
      const signature = signHmac({ secret, rawBody, timestamp: old });
      expect(() =>
        verifyHmacSignature({ secret, rawBody, signature, timestamp: old, now, toleranceSeconds: 1200 }),
      ).not.toThrow();
    });

    it('rejects a signature whose timestamp was changed', () => {
      const signature = signHmac({ secret, rawBody, timestamp });
      expect(rejection({ secret, rawBody, signature, timestamp: timestamp + 5, now }).message).toMatch(
        /does not match/,
      );
    });

    it('rejects a malformed timestamp', () => {
      const signature = signHmac({ secret, rawBody, timestamp });
      expect(rejection({ secret, rawBody, signature, timestamp: 'yesterday', now }).message).toMatch(
        /timestamp is malformed/,
      );
    });

    it('uses a custom signedPayload (Slack-style v0:ts:body)', () => {
      const signedPayload = (body: string, ts?: string) => `v0:${ts}:${body}`;
      const signature = signHmac({ secret, rawBody, timestamp, signedPayload, prefix: 'v0=' });
      expect(signature).toBe(
        `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`,
      );
      expect(() =>
        verifyHmacSignature({ secret, rawBody, signature, timestamp, signedPayload, prefix: 'v0=', now }),
      ).not.toThrow();
    });
  });
});
