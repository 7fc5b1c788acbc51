// With DISPATCH_TOKEN set, the descriptor asks for a token and every action checks it.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatchApp } from '../src/app.js';

const TOKEN = 'operator-given-token-0001';
let app: TestApp;
beforeAll(async () => {
  app = await testApp(createDispatchApp({ token: TOKEN }));
});
afterAll(async () => {
  await app.close();
});

describe('dispatch: token', () => {
  it('asks for a token in the descriptor', async () => {
    const { body } = await app.descriptor();
    expect(body.authentication).toEqual([
      expect.objectContaining({
        id: 'token',
        fields: [expect.objectContaining({ id: 'token', type: 'password' })],
      }),
    ]);
    expect(body.actions.map((a: { action: string }) => a.action)).toEqual([
      'send-email',
      'http-request',
      'save-entity',
    ]);
  });

  it('validates the token', async () => {
    expect((await app.validate('token', { token: TOKEN })).body).toEqual({ name: 'Dispatch' });
    const wrong = await app.validate('token', { token: 'operator-given-token-0002' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).not.toContain(TOKEN);
  });

  it('refuses to run an action without the right token', async () => {
    const args = { to: 'a@example.com', subject: 's', body: 'b' };
    expect((await app.execute('send-email', args, {})).status).toBe(401);
    expect((await app.execute('send-email', args, { token: 'x' })).status).toBe(401);
    expect((await app.execute('http-request', { url: 'http://example.com' }, { token: 'x' })).status).toBe(
      401,
    );
    expect((await app.execute('send-email', args, { token: TOKEN })).status).toBe(200);
  });
});
