import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SecretBox } from '../src/host/secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { describeEachDatabase } from './support/databases.js';
import { listenReplyApp, type ReplyAppControl } from './support/reply-app.js';

// The event URL (/hooks/sources/:id, no token) over real HTTP: the reply an app's pre-process
// answers is the body the sender gets, as plain text or JSON that no browser renders.

describeEachDatabase('event URL answers', (target) => {
  const control: ReplyAppControl = { reply: undefined };
  let app: Awaited<ReturnType<typeof listenReplyApp>>;
  let ws: HostedWorkspace;
  let drop: () => Promise<void> = async () => {};
  let eventUrl = '';

  beforeAll(async () => {
    const created = await target.create();
    drop = created.drop;
    app = await listenReplyApp(control);
    ws = await startHostedWorkspace({
      database: created.database,
      adminToken: `admin-${randomBytes(8).toString('hex')}`,
      rateLimit: 0,
      webhooks: false,
      box: new SecretBox('event-url-key'),
      hostOptions: { scheduleEveryMs: 0 },
      log: () => {},
    });
    const source = await ws.apps.addSource({ url: app.url, fields: { token: 't' } });
    eventUrl = ws.apps.webhookUrl(source.id);
  });
  afterAll(async () => {
    await ws?.close();
    await app?.close();
    await drop();
  });

  const post = () =>
    fetch(eventUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
      redirect: 'manual',
    });

  it('an HTML reply goes out as plain text, sandboxed, with no header of the app', async () => {
    control.reply = '<script>document.title = "ran"</script>';
    const res = await post();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(await res.text()).toBe('<script>document.title = "ran"</script>');
  });

  it('a reply that is not a string goes out as JSON (a challenge echo), sandboxed', async () => {
    control.reply = { challenge: 'abc' };
    const res = await post();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox;/);
    expect(await res.json()).toEqual({ challenge: 'abc' });
  });

  it('answers {} when the app gives no reply', async () => {
    control.reply = undefined;
    const res = await post();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({});
  });
});
