// What an app says is stored in a run record only up to a bound: a megabyte message is clipped,
// a large answer replaced by a note of its size, and an answer past the transport's limit is not
// read at all. A bare local app plays the hostile one.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_RUN_ANSWER_BYTES, MAX_RUN_MESSAGE } from '../src/host/run-record-limits.js';
import { waitFor } from './support/bookshelf-seed.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';
import { localSource } from './support/local-source.js';

describeEachDatabase('run records keep a bounded excerpt of what an app said', (target) => {
  const h = useWorkspace(target);
  let reply: { status: number; body: string } = { status: 200, body: '{}' };
  // The account is validated before the action runs: the account (auth: 'none') is not asked for,
  // and only the action's own answer is the hostile one.
  const app = localSource((req, res) => {
    req.resume();
    req.on('end', () => {
      const action = (req.url ?? '').startsWith('/api/v1/automations/action/execute');
      const { status, body } = action ? reply : { status: 404, body: '{"message":"not here"}' };
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
  beforeAll(async () => {
    await app.start();
    await h.run('schema.type/create', typeArgs('r/thing'));
  });
  afterAll(() => app.stop());

  async function runOnce(status: number, body: string) {
    reply = { status, body };
    const created = await h.request('POST', '/api/automations', {
      name: `hostile ${Math.random()}`,
      trigger: 'created',
      type: 'r/thing',
      action: { kind: 'app', url: app.url, action: 'a', args: {}, account: { auth: 'none' } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await h.run('svc.entity/create', { type: 'r/thing', entity: {} });
    const [run] = await waitFor('a finished run', async () => {
      const runs = (await h.request('GET', `/api/automations/runs?automation=${created.body.id}`))
        .body as any[];
      const done = runs.filter((r) => r.state === 'done' || r.state === 'failed');
      return done.length > 0 ? done : undefined;
    });
    await h.request('DELETE', `/api/automations/${created.body.id}`);
    return run as { state: string; message: string | null; answer: unknown };
  }

  it('clips a huge error message', async () => {
    const run = await runOnce(400, JSON.stringify({ message: 'm'.repeat(200_000) }));
    expect(run.state).toBe('failed');
    expect(run.message!.length).toBeLessThan(MAX_RUN_MESSAGE + 40);
    expect(run.message).toMatch(/\(200000 characters\)$/);
  });

  it('replaces a large answer by a note of its size', async () => {
    const body = JSON.stringify({ rows: 'r'.repeat(MAX_RUN_ANSWER_BYTES * 2) });
    const run = await runOnce(200, body);
    expect(run.state).toBe('done');
    expect(run.answer).toEqual({ truncated: true, bytes: Buffer.byteLength(body) });
  });

  it('does not read an answer past the transport limit', async () => {
    const run = await runOnce(200, JSON.stringify({ rows: 'r'.repeat(5 * 1024 * 1024) }));
    expect(run.state).toBe('failed');
    expect(run.message).toBe("The app's answer is larger than 4194304 bytes");
  });
});
