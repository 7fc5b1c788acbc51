// `GET /` tells clients the app's handler time limit, so that a client can wait longer than the
// app and see the app's own 504 tryLater instead of giving up first.
import { describe, expect, test } from 'vitest';
import { auth, defineApp } from '../src/index.js';
import { testApp } from '../src/testing/index.js';
import { descriptorBase, emptyType } from './fixtures/minimal.js';

const base = {
  id: 'limits',
  name: 'Limits',
  ...descriptorBase,
  authentication: [auth.none()],
  sync: { types: { t: emptyType } },
};

describe('X-Weft-Time-Limit on GET /', () => {
  test('carries the default limit of 25,000 ms', async () => {
    const app = await testApp(defineApp(base));
    try {
      const res = await fetch(`${app.url}/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-weft-time-limit')).toBe('25000');
    } finally {
      await app.close();
    }
  });

  test("carries the app's own timeoutMs", async () => {
    const app = await testApp(defineApp({ ...base, timeoutMs: 1234 }));
    try {
      const res = await fetch(`${app.url}/`);
      expect(res.headers.get('x-weft-time-limit')).toBe('1234');
      // Only the descriptor carries it.
      const logo = await fetch(`${app.url}/logo`);
      expect(logo.headers.get('x-weft-time-limit')).toBeNull();
    } finally {
      await app.close();
    }
  });
});
