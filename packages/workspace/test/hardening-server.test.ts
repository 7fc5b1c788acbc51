// The workspace's HTTP server has core's limits (hardenServer): a connection cap, and a request
// whose body trickles in is cut when its time is up, answered 408 in JSON. The limits are the
// server's, not the database's: these run on PGlite only.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorkspace, startWorkspace } from '../src/start-workspace.js';
import { openSocket, parseAnswer, requestHead } from './support/raw-http.js';

const TOKEN = `admin-${randomUUID()}`;

/** Everything the server writes on `socket` until it closes it. */
function untilClosed(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => {});
  return new Promise((resolve) =>
    socket.once('close', () => resolve(Buffer.concat(chunks).toString('utf8'))),
  );
}

describe('a trickled body', () => {
  let ws: RunningWorkspace;
  beforeAll(async () => {
    ws = await startWorkspace({
      adminToken: TOKEN,
      rateLimit: 0,
      webhooks: false,
      log: () => {},
      server: { headersTimeoutMs: 1_000, requestTimeoutMs: 1_500 },
    });
  });
  afterAll(() => ws?.close());

  it('is cut when the request time is up, with a 408 in JSON', async () => {
    const socket = await openSocket(ws.url);
    const closed = untilClosed(socket);
    socket.write(
      requestHead('POST', '/api/commands', {
        authorization: `Token ${TOKEN}`,
        'content-type': 'application/json',
        'content-length': 1000,
      }),
    );
    socket.write('[');
    const answer = parseAnswer(await closed);
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({ message: 'The request took too long to arrive' });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('the connection cap', () => {
  let ws: RunningWorkspace;
  const held: Socket[] = [];
  beforeAll(async () => {
    ws = await startWorkspace({
      rateLimit: 0,
      webhooks: false,
      log: () => {},
      server: { maxConnections: 2 },
    });
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await ws?.close();
  });

  it('refuses a connection over the cap and serves the ones within it', async () => {
    held.push(await openSocket(ws.url), await openSocket(ws.url));
    const third = await openSocket(ws.url);
    held.push(third);
    const refused = untilClosed(third);
    third.write(requestHead('GET', '/', { connection: 'close' }));
    expect(await refused).toBe('');

    const first = held[0]!;
    const served = untilClosed(first);
    first.write(requestHead('GET', '/', { connection: 'close' }));
    const answer = parseAnswer(await served);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ name: 'weft workspace', api: '/api' });
  });
});
