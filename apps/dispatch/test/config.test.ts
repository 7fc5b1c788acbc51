import { describe, expect, it } from 'vitest';
import { configFromEnv, DEFAULT_FROM } from '../src/config.js';

describe('dispatch: configuration from the environment', () => {
  it('needs nothing: e-mails logged, no token, internal addresses refused', () => {
    expect(configFromEnv({})).toEqual({ mailFrom: DEFAULT_FROM, allowPrivateNetworks: false });
  });

  it('reads every variable', () => {
    const config = configFromEnv({
      SMTP_URL: 'smtps://user:p%40ss@mail.example.com:465',
      MAIL_FROM: 'Ops <ops@example.com>',
      DISPATCH_TOKEN: 'a-long-enough-token-1234',
      HTTP_ALLOW_PRIVATE: 'true',
    });
    expect(config.smtpUrl?.host).toBe('mail.example.com:465');
    expect(config).toMatchObject({
      mailFrom: 'Ops <ops@example.com>',
      token: 'a-long-enough-token-1234',
      allowPrivateNetworks: true,
    });
  });

  it.each([
    [{ SMTP_URL: 'smtp://u:hunter2-secret@bad host' }, /SMTP_URL is not a URL/],
    [
      { SMTP_URL: 'https://u:hunter2-secret@mail.example.com' },
      /must be smtp:\/\/ or smtps:\/\/, not https:/,
    ],
    [{ DISPATCH_TOKEN: 'short' }, /at least 16 characters/],
    [{ HTTP_ALLOW_PRIVATE: 'yes' }, /HTTP_ALLOW_PRIVATE/],
  ])('refuses %j with a message naming the variable and no secret', (env, message) => {
    let error: Error | undefined;
    try {
      configFromEnv(env);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain('hunter2');
  });
});
