import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';
import { closedPort, localSource, namesLookup } from './support/local-source.js';
import { logIn } from './support/page-session.js';

// The outbound policy where users reach it: files from a URL, the page's "add a source" form and
// webhook deliveries, with private networks refused (the default of a workspace listening beyond
// loopback). `files.test` is a name the admin allowed, resolving to the loopback source.

const testLookup = namesLookup({ 'files.test': '127.0.0.1' });

describeEachDatabase('the outbound policy on files, pages and webhooks', (target) => {
  const h = useWorkspace(target, {
    outbound: { allowPrivateNetworks: false, allow: ['files.test'], lookup: testLookup },
  });
  const source = localSource((req, res) => {
    if (req.url?.startsWith('/to?'))
      return res.writeHead(302, { location: decodeURIComponent(req.url.slice(4)) }).end();
    if (req.url === '/dies') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('z'.repeat(600 * 1024));
      setTimeout(() => res.socket?.destroy(), 50);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('secret of the inside');
  });
  const chunks = async () =>
    Number((await h.ws.driver.query<{ n: string }>('SELECT count(*) AS n FROM svc_file_chunks')).rows[0]!.n);

  beforeAll(async () => {
    await source.start();
    await h.run('schema.type/create', typeArgs('o/task'));
  });
  afterAll(() => source.stop());

  it('from-url refuses loopback in every spelling, the same for an open and a closed port, storing nothing', async () => {
    const before = await chunks();
    const seen = source.seen.length;
    const answers = [];
    for (const url of [
      `${source.url}/file`,
      `http://2130706433:${source.port}/file`,
      `http://[::1]:${source.port}/file`,
      `http://localhost:${source.port}/file`,
      `http://127.0.0.1:${await closedPort()}/file`,
      `http://files.test:${source.port}/to?${encodeURIComponent(`${source.url}/file`)}`,
    ]) {
      const res = await h.request('POST', '/api/files/from-url', { url });
      expect(res.status).toBe(400);
      answers.push(res.body);
    }
    for (const body of answers) {
      expect(body).toEqual({ code: 'bad-request', message: expect.stringContaining('loopback addresses') });
      expect(body.message).toBe(answers[0].message);
      expect(JSON.stringify(body)).not.toContain('secret of the inside');
    }
    expect(source.seen.length).toBe(seen + 1); // only the allowed name's redirect
    expect(await chunks()).toBe(before);
  });

  it('from-url fetches an allowed name with GET and harmless headers only', async () => {
    const ok = await h.request('POST', '/api/files/from-url', {
      url: `http://files.test:${source.port}/a/report.txt`,
      headers: { Authorization: 'Bearer k' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body['svc/name']).toBe('report.txt');
    expect(source.seen.at(-1)).toMatchObject({ method: 'GET', headers: { authorization: 'Bearer k' } });
    // A header of the caller's own for that source goes with the request, as the spec has it.
    const keyed = await h.request('POST', '/api/files/from-url', {
      url: `http://files.test:${source.port}/report.txt`,
      headers: { 'x-source-key': 'k1' },
    });
    expect(keyed.status).toBe(200);
    expect(source.seen.at(-1)).toMatchObject({ headers: { 'x-source-key': 'k1' } });
    const url = `http://files.test:${source.port}/x`;
    for (const body of [
      { url, method: 'POST' },
      { url, method: 'DELETE' },
      { url, headers: { host: 'metadata.internal' } },
      { url, headers: { 'x-forwarded-for': '10.0.0.1' } },
      { url, headers: { 'metadata-flavor': 'Google' } },
    ]) {
      const res = await h.request('POST', '/api/files/from-url', body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/method may only be GET|may not be sent to the source/);
    }
  });

  it('from-url with a malformed escape in its name stores one file; a source dying mid-answer leaves nothing', async () => {
    const before = await chunks();
    const odd = await h.request('POST', '/api/files/from-url', {
      url: `http://files.test:${source.port}/a/100%25%zz.txt`,
    });
    expect(odd.status).toBe(200);
    expect(odd.body['svc/name']).toBe('100%25%zz.txt');
    expect(await chunks()).toBe(before + 1);
    const died = await h.request('POST', '/api/files/from-url', {
      url: `http://files.test:${source.port}/dies`,
    });
    expect(died.status).toBe(400);
    expect(await chunks()).toBe(before + 1);
  });

  it('the page does not fetch a descriptor from loopback', async () => {
    const { cookie } = await logIn(h.url, h.token);
    const seen = source.seen.length;
    const res = await fetch(`${h.url}/ui/sources/new?url=${encodeURIComponent(`${source.url}/`)}`, {
      headers: { cookie },
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain('loopback addresses');
    expect(source.seen.length).toBe(seen);
  });

  it('webhook deliveries to loopback are refused at delivery and recorded as failed runs', async () => {
    const seen = source.seen.length;
    const hook = (await h.request('POST', '/api/webhooks/v2', { url: `${source.url}/hook`, type: 'o/task' }))
      .body;
    await h.run('svc.entity/create', { type: 'o/task', entity: {} });
    await h.ws.webhooks!.idle();
    const listed = (await h.request('GET', '/api/webhooks/v2')).body.find((w: any) => w.id === hook.id);
    expect(listed.runs.length).toBeGreaterThan(0);
    expect(listed.runs[0].http_status).toBe('0');
    expect(source.seen.length).toBe(seen);
  });
});
