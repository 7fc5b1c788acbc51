// The protocol's routes are found by one Map lookup of the exact path (src/router/route-table.ts)
// instead of Express's route layers: the same answers as strict, case-sensitive Express routes,
// HEAD answered by GET's handler, and anything else passed on.
import express from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { auth, createRouter, createServer, defineApp, silentLogger } from '../src/index.js';
import { descriptorBase, emptyType } from './fixtures/minimal.js';

const app = defineApp({
  id: 'table',
  name: 'Table',
  ...descriptorBase,
  authentication: [auth.none()],
  sync: { types: { t: emptyType } },
});
const options = { logger: silentLogger, pageKeys: ['k'] };

describe('protocol routes by exact path', () => {
  const http = request(createServer(app, options));

  test('each method at its path', async () => {
    expect((await http.get('/')).body.id).toBe('table');
    expect((await http.post('/validate').send({ id: 'none', fields: {} })).body).toEqual({
      name: 'Public access',
    });
  });

  test('HEAD is answered as GET, without a body', async () => {
    const head = await http.head('/');
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toMatch(/application\/json/);
    expect(head.text ?? '').toBe('');
  });

  test('another case, a trailing slash or a query string', async () => {
    expect((await http.post('/Validate').send({ id: 'none' })).status).toBe(404);
    expect((await http.post('/validate/').send({ id: 'none' })).status).toBe(404);
    expect((await http.post('/validate?x=1').send({ id: 'none', fields: {} })).status).toBe(200);
  });

  test('a known path with another method is a 405', async () => {
    const answer = await http.get('/validate');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
  });

  test('under a prefix, and what the router does not know passes on', async () => {
    const server = express();
    server.use('/app', createRouter(app, options));
    server.post('/app/mine', (req, res) => {
      res.json({ mine: req.body });
    });
    const mounted = request(server);
    expect((await mounted.post('/app/validate').send({ id: 'none', fields: {} })).status).toBe(200);
    expect((await mounted.post('/validate').send({ id: 'none', fields: {} })).status).toBe(404);
    expect((await mounted.post('/app/mine').send({ a: 1 })).body).toEqual({ mine: { a: 1 } });
  });
});
