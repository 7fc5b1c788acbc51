import { describe, expect, test } from 'vitest';
import { collectSecrets, isSecretKey, redact } from './redact.js';

describe('redaction', () => {
  test('secret-named keys are secret; look-alikes are not', () => {
    for (const key of [
      'password',
      'access_token',
      'refreshToken',
      'client_secret',
      'apiKey',
      'api-key',
      'Authorization',
    ]) {
      expect(isSecretKey(key), key).toBe(true);
    }
    for (const key of ['author', 'authority', 'name', 'host', 'expire_on'])
      expect(isSecretKey(key), key).toBe(false);
  });
  test('collects nested secrets and the extra keys the app marks secret', () => {
    const secrets = collectSecrets(
      { account: { token: 'tok-123456', pin: '987654', name: 'Ada' }, fields: { access_secret: 'sec-xyz' } },
      ['pin'],
    );
    expect(secrets.sort()).toEqual(['987654', 'sec-xyz', 'tok-123456']);
  });
  test('raw bytes are not walked index by index', () => {
    expect(collectSecrets({ rawBody: Buffer.alloc(1_000_000), token: 'tok-123456' })).toEqual(['tok-123456']);
  });
  test('replaces every occurrence, the longest secret first', () => {
    expect(redact('a tok-1234 b tok-12345678 c', ['tok-1234', 'tok-12345678'])).toBe(
      'a [redacted] b [redacted] c',
    );
  });
});
