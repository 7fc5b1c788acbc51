import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SecretBox } from '../src/host/secret-box.js';
import { type HostedWorkspace, startHostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { describeEachDatabase } from './support/databases.js';
import { listenReplyApp, type ReplyAppControl } from './support/reply-app.js';

// The event URL (/hooks/sources/:id, no token) over real HTTP: of the reply an app's pre-process
// asks for, the sender gets the status and the body only, as plain text or JSON that no browser
// renders, never the app's headers.

describeEachDatabase('event URL answers', (target) => {
  const control: ReplyAppControl = { reply: { status: 200 } };
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

  it("never sends the app's headers, and an HTML body goes out as plain text, sandboxed", async () => {
    control.reply = {
      status: 200,
      headers: {
        'content-type': 'text/html',
        'set-cookie': 'weft_page=planted; Path=/ui',
        location: 'http://127.0.0.1:9/',
        'access-control-allow-origin': '*',
        'x-app-said': 'hello',
      },
      body: '<script>document.title = "ran"</script>',
    };
    const res = await post();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('x-app-said')).toBeNull();
    expect(await res.text()).toBe('<script>document.title = "ran"</script>');
  });

  it("passes the app's status through, and a body that is not a string as JSON", async () => {
    control.reply = { status: 409, headers: { 'content-type': 'text/html' }, body: { challenge: 'abc' } };
    const res = await post();
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/^sandbox;/);
    expect(await res.json()).toEqual({ challenge: 'abc' });
  });

  it('answers an empty body when the app gives none, and refuses a status that is not final', async () => {
    control.reply = { status: 204 };
    const empty = await post();
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
    control.reply = { status: 102, body: 'wait' };
    const informational = await post();
    expect(informational.status).toBe(502);
    expect(((await informational.json()) as { message: string }).message).toMatch(/not a final HTTP status/);
    control.reply = { status: 1000, body: 'no such status' };
    const beyond = await post();
    expect(beyond.status).toBe(502);
  });
});
