// Start-up and shutdown of a real process: SIGTERM while a client holds a half-sent request,
// an idle keep-alive connection and a request in flight; a start on a busy port; and what a
// connection leaves behind.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { type Server, type Socket, connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, test } from 'vitest';
import { DEFAULT_SHUTDOWN_GRACE_MS } from '../src/router/create-server.js';

const SERVE = fileURLToPath(new URL('./fixtures/serve.ts', import.meta.url));

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVE], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const w of waiters.filter((x) => stdout.includes(x.text))) w.resolve();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    waitFor: (text: string) =>
      stdout.includes(text)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ text, resolve })),
  };
}

function kill(child: ChildProcess) {
  if (child.exitCode === null) child.kill('SIGKILL');
}

describe('shutdown', () => {
  test('SIGTERM answers the request in flight, drops half-sent and idle connections, and exits', async () => {
    const proc = start({ PORT: '0', WEFT_SHUTDOWN_GRACE_MS: '3000' });
    try {
      await proc.waitFor('listening on');
      const port = Number(/listening on http:\/\/[^:]+:(\d+)/.exec(proc.output().stdout)![1]);
      // A client that sends half of its headers and then nothing.
      const stalled = connect(port, '127.0.0.1');
      await once(stalled, 'connect');
      stalled.write('POST /api/v1/synchronizer/data HTTP/1.1\r\nHost: app\r\nContent-Type: app');
      const stalledClosed = once(stalled, 'close');
      // An idle keep-alive connection after one answered request.
      const idle = connect(port, '127.0.0.1');
      await once(idle, 'connect');
      idle.write('GET / HTTP/1.1\r\nHost: app\r\n\r\n');
      await once(idle, 'data');
      const idleClosed = once(idle, 'close');
      // A request in flight when the signal arrives.
      const inFlight = fetch(`http://127.0.0.1:${port}/api/v1/synchronizer/data`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ requestedType: 'slow', types: ['slow'], account: {}, filter: {} }),
      });
      await proc.waitFor('slow-started');
      proc.child.kill('SIGTERM');
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { items: unknown[] }).items).toEqual([{ id: '1', name: 'done' }]);
      await Promise.all([stalledClosed, idleClosed]);
      const [code] = await proc.exited;
      expect(code).toBe(0);
    } finally {
      kill(proc.child);
    }
  }, 20_000);

  test('a request that never finishes is cut when the grace period ends', async () => {
    const proc = start({ PORT: '0', WEFT_SHUTDOWN_GRACE_MS: '300' });
    try {
      await proc.waitFor('listening on');
      const port = Number(/listening on http:\/\/[^:]+:(\d+)/.exec(proc.output().stdout)![1]);
      // Headers complete, body promised but never sent: a request in flight that cannot end.
      const stalled = connect(port, '127.0.0.1');
      await once(stalled, 'connect');
      stalled.write(
        'POST /api/v1/synchronizer/data HTTP/1.1\r\nHost: app\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"req',
      );
      stalled.on('error', () => {});
      await new Promise((resolve) => setTimeout(resolve, 100));
      proc.child.kill('SIGTERM');
      const [code] = await proc.exited;
      expect(code).toBe(0);
    } finally {
      kill(proc.child);
    }
  }, 20_000);
});

test('the default grace period ends with time to exit before a container is killed', () => {
  // `docker stop` and Cloud Run send SIGKILL 10 s after SIGTERM.
  expect(DEFAULT_SHUTDOWN_GRACE_MS).toBeLessThanOrEqual(10_000 - 2_000);
});

describe('start-up', () => {
  test('a busy port ends the process with status 1 and one clear line, never "listening"', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    const proc = start({ PORT: String(port) });
    try {
      const [code] = await proc.exited;
      expect(code).toBe(1);
      expect(proc.output().stderr).toContain(`Serve could not start: port ${port} is already in use`);
      expect(proc.output().stdout).not.toContain('listening');
    } finally {
      kill(proc.child);
      blocker.close();
    }
  }, 20_000);
});

describe('slow clients', () => {
  test('a client trickling its headers is answered 408 JSON and disconnected', async () => {
    const { startServer, silentLogger } = await import('../src/index.js');
    const { trackerApp } = await import('./fixtures/tracker-app.js');
    const running = await startServer(trackerApp(), {
      port: 0,
      host: '127.0.0.1',
      announce: false,
      logger: silentLogger,
      pageKeys: ['k'],
      headersTimeoutMs: 500,
      requestTimeoutMs: 1_000,
    });
    try {
      const slow = connect(running.port, '127.0.0.1');
      await once(slow, 'connect');
      let received = '';
      slow.on('data', (chunk: Buffer) => {
        received += chunk.toString();
      });
      slow.on('error', () => {});
      const closed = once(slow, 'close');
      // One header byte every 100 ms, never finishing.
      const header =
        'POST /validate HTTP/1.1\r\nHost: app\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
      let i = 0;
      const drip = setInterval(() => {
        if (slow.writable && i < header.length) slow.write(header[i++]!);
      }, 100);
      await closed;
      clearInterval(drip);
      expect(received).toMatch(/^HTTP\/1\.1 408/);
      expect(received).toContain('application/json');
      expect(received).toContain('{"message":"The request took too long to arrive"}');
    } finally {
      await running.close();
    }
  }, 20_000);
});

describe('connections', () => {
  test('a client that goes away mid-request leaves nothing of its connection behind', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { startServer, silentLogger } = await import('../src/index.js');
    const { slowApp } = await import('./fixtures/slow-app.js');
    const running = await startServer(slowApp, {
      port: 0,
      host: '127.0.0.1',
      announce: false,
      logger: silentLogger,
      pageKeys: ['k'],
    });
    const sockets: WeakRef<Socket>[] = [];
    running.server.on('connection', (socket: Socket) => sockets.push(new WeakRef(socket)));
    try {
      const body = JSON.stringify({ requestedType: 'slow', types: ['slow'], account: {}, filter: {} });
      for (let i = 0; i < 5; i++) {
        const client = connect(running.port, '127.0.0.1');
        await once(client, 'connect');
        // Gone once the server holds the request (and counts it in flight), before its answer.
        // (Waited for without keeping the request: the test must hold none of its objects.)
        const held = new Promise<void>((resolve) => running.server.once('request', () => resolve()));
        client.write(
          `POST /api/v1/synchronizer/data HTTP/1.1\r\nHost: app\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        );
        await held;
        client.destroy();
      }
      // The handlers still run after their clients have gone; once they end, nothing may hold
      // the sockets.
      // (A WeakRef read keeps its target for the rest of the turn, so the collection runs on a
      // turn of its own.)
      const alive = () => sockets.filter((ref) => ref.deref() !== undefined).length;
      const tick = () => new Promise((resolve) => setTimeout(resolve, 100));
      for (let round = 0; round < 50 && alive() > 0; round++) {
        await tick();
        gc();
        await tick();
      }
      expect(sockets).toHaveLength(5);
      expect(alive()).toBe(0);
    } finally {
      await running.close();
    }
  }, 30_000);
});
