// A router whose logger discards everything (silentLogger, or WEFT_LOG_LEVEL=silent) does no
// request-log work: no timing and no 'close' listener per request. A logger that writes keeps
// its one line per request.
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { type Logger, auth, createRouter, defineApp, jsonLogger, silentLogger } from '../src/index.js';
import { descriptorBase, emptyType } from './fixtures/minimal.js';

const app = defineApp({
  id: 'quiet',
  name: 'Quiet',
  ...descriptorBase,
  authentication: [auth.none()],
  sync: { types: { t: emptyType } },
});

/** The app's router behind a middleware that counts the 'close' listeners put on each response. */
function counted(logger: Logger) {
  const closeListeners: number[] = [];
  const count: RequestHandler = (_req, res, next) => {
    const before = res.listenerCount('close');
    res.once('finish', () => closeListeners.push(res.listenerCount('close') - before));
    next();
  };
  const server = express();
  server.use(count);
  server.use(createRouter(app, { logger, pageKeys: ['k'] }));
  return { http: request(server), closeListeners };
}

describe('request log of a silent router', () => {
  test('silentLogger: no listener per request', async () => {
    const { http, closeListeners } = counted(silentLogger);
    expect((await http.post('/validate').send({ id: 'none', fields: {} })).status).toBe(200);
    expect(closeListeners).toEqual([0]);
  });

  test('WEFT_LOG_LEVEL=silent is the silent logger', () => {
    expect(jsonLogger(() => {}, 'silent')).toBe(silentLogger);
  });

  test('a logger that writes gets its request line', async () => {
    const lines: string[] = [];
    const { http, closeListeners } = counted(jsonLogger((line) => lines.push(line), 'info'));
    expect((await http.post('/validate').send({ id: 'none', fields: {} })).status).toBe(200);
    expect(closeListeners).toEqual([1]);
    expect(lines.map((line) => JSON.parse(line).path)).toEqual(['/validate']);
  });
});
