import { describe, expect, test } from 'vitest';
import { type Logger, auth, defineApp, field, input } from '../src/index.js';
import { testApp } from '../src/testing/index.js';
import { descriptorBase, emptyType } from './fixtures/minimal.js';

// A data handler's abort signal is made when the handler first reads `ctx.signal` (it costs an
// EventTarget per request otherwise). A handler that reads it late must still see what an
// early reader sees: aborted, with the same reason, once the time limit passed or the service
// hung up.

function lateReader(timeoutMs: number) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const seen: { started?: boolean; aborted?: boolean; reason?: string; spread?: boolean; keys?: string[] } =
    {};
  const app = defineApp({
    id: 'late-signal',
    name: 'Late signal',
    ...descriptorBase,
    timeoutMs,
    authentication: [auth.none()],
    sync: {
      types: {
        issue: {
          name: 'Issue',
          fields: { id: field.id(), name: field.text() },
          async *data(ctx) {
            seen.started = true;
            await released;
            seen.aborted = ctx.signal.aborted;
            seen.reason = String(ctx.signal.reason);
            // A copy of the context carries the same signal.
            seen.spread = { ...ctx }.signal === ctx.signal;
            seen.keys = Object.keys(ctx);
            yield { id: '1', name: 'late' };
          },
        },
      },
    },
  });
  return { app, release, seen };
}

function memoryLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const logger: Logger = {
    info: (fields, msg) => lines.push({ msg, ...fields }),
    warn: (fields, msg) => lines.push({ msg, ...fields }),
    error: (fields, msg) => lines.push({ msg, ...fields }),
  };
  return { logger, lines };
}

describe('a data handler that reads its signal late', () => {
  test('after the time limit: already aborted with the timeout', async () => {
    const { app, release, seen } = lateReader(150);
    const running = await testApp(app);
    try {
      const res = await running.post('/api/v1/synchronizer/data', { requestedType: 'issue' });
      expect(res.status).toBe(504);
      release();
      await expect.poll(() => seen.aborted, { timeout: 15_000 }).toBe(true);
      expect(seen.reason).toContain('did not answer /api/v1/synchronizer/data within 150 ms');
    } finally {
      await running.close();
    }
  });

  test('after the service hung up: already aborted with the hang-up', async () => {
    const { app, release, seen } = lateReader(10_000);
    const local = memoryLogger();
    const running = await testApp(app, { logger: local.logger });
    try {
      const controller = new AbortController();
      const pending = fetch(`${running.url}/api/v1/synchronizer/data`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ requestedType: 'issue' }),
        signal: controller.signal,
      }).catch(() => undefined);
      // The handler is waiting: hang up, and let it go on once the server saw the hang-up.
      await expect.poll(() => seen.started, { timeout: 15_000 }).toBe(true);
      controller.abort();
      await pending;
      await expect
        .poll(() => local.lines.find((line) => line.msg === 'request')?.aborted, { timeout: 15_000 })
        .toBe(true);
      release();
      await expect.poll(() => seen.aborted, { timeout: 15_000 }).toBe(true);
      expect(seen.reason).toContain('The service closed the connection');
    } finally {
      await running.close();
    }
  });

  test('while the request is alive: not aborted', async () => {
    const { app, release, seen } = lateReader(10_000);
    const running = await testApp(app);
    try {
      release();
      const res = await running.post('/api/v1/synchronizer/data', { requestedType: 'issue' });
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([{ id: '1', name: 'late' }]);
      expect(seen.aborted).toBe(false);
      expect(seen.spread).toBe(true);
      expect(seen.keys).toContain('signal');
    } finally {
      await running.close();
    }
  });
});

describe('a validate handler that reads its signal late', () => {
  function lateValidator(timeoutMs: number) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: { aborted?: boolean; reason?: string; spread?: boolean } = {};
    const app = defineApp({
      id: 'late-validate',
      name: 'Late validate',
      ...descriptorBase,
      timeoutMs,
      authentication: [
        auth.fields({
          id: 'token',
          name: 'Token',
          fields: { token: input.text({ name: 'Token' }) },
          async validate(_account, ctx) {
            await released;
            seen.aborted = ctx.signal.aborted;
            seen.reason = String(ctx.signal.reason);
            seen.spread = { ...ctx }.signal === ctx.signal;
            return { name: 'Someone' };
          },
        }),
      ],
      sync: { types: { t: emptyType } },
    });
    return { app, release, seen };
  }

  test('after the time limit: already aborted with the timeout', async () => {
    const { app, release, seen } = lateValidator(150);
    const running = await testApp(app);
    try {
      const res = await running.post('/validate', { id: 'token', fields: { token: 't' } });
      expect(res.status).toBe(504);
      release();
      await expect.poll(() => seen.aborted, { timeout: 15_000 }).toBe(true);
      expect(seen.reason).toContain('did not answer /validate within 150 ms');
    } finally {
      await running.close();
    }
  });

  test('while the request is alive: not aborted, and a copy of the context carries it', async () => {
    const { app, release, seen } = lateValidator(10_000);
    const running = await testApp(app);
    try {
      release();
      const res = await running.post('/validate', { id: 'token', fields: { token: 't' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ name: 'Someone' });
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(seen).toEqual({ aborted: false, reason: 'undefined', spread: true });
    } finally {
      await running.close();
    }
  });
});
