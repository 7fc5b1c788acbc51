// An app action validates its account first (POST /validate, as the service does before any action
// that uses the account), over real HTTP against a raw Express action app: a refused account is
// recorded as such and the action is not run; an accepted one runs with what /validate returned
// (a refreshed token); an app whose authentication is `none` is not asked.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runAppAction } from './app-action.js';

type Json = Record<string, unknown>;
const calls: { path: string; body: Json }[] = [];
let server: Server;
let url = '';
let auth = 'token';

beforeAll(async () => {
  const app = express();
  app.use(express.json());
  app.use((req, _res, next) => {
    calls.push({ path: req.path, body: req.body as Json });
    next();
  });
  app.get('/', (_req, res) => {
    res.json({
      name: 'Notifier',
      version: '1.0.0',
      website: 'http://127.0.0.1/',
      description: 'actions',
      authentication: [{ id: auth, name: 'Token', fields: [] }],
      sources: [],
      responsibleFor: { automations: true },
    });
  });
  app.post('/validate', (req, res) => {
    const fields = req.body.fields as Json;
    if (fields.token !== 'good') {
      res.status(401).json({ message: 'The token expired' });
      return;
    }
    res.json({ name: 'Notifier account', access_token: 'fresh' });
  });
  app.post('/api/v1/automations/action/execute', (_req, res) => {
    res.json({});
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

it('records a refused account and does not run the action', async () => {
  calls.length = 0;
  const outcome = await runAppAction(url, 'notify', { text: 'hi' }, { token: 'old' });
  expect(outcome).toEqual({
    ok: false,
    message: 'The app refused the account (POST /validate): The token expired',
    answer: null,
  });
  expect(calls.map((c) => c.path)).toEqual(['/', '/validate']);
  expect(calls[1]?.body).toEqual({ id: 'token', fields: { token: 'old' } });
});

it('runs the action with the account /validate returned', async () => {
  calls.length = 0;
  const outcome = await runAppAction(url, 'notify', { text: 'hi' }, { auth: 'token', token: 'good' });
  expect(outcome.ok).toBe(true);
  // The account names its authentication: the descriptor is not asked.
  expect(calls.map((c) => c.path)).toEqual(['/validate', '/api/v1/automations/action/execute']);
  expect(calls[1]?.body).toEqual({
    action: { action: 'notify', args: { text: 'hi' } },
    account: { auth: 'token', token: 'good', access_token: 'fresh' },
  });
});

it('does not validate for an app without accounts', async () => {
  auth = 'none';
  calls.length = 0;
  const outcome = await runAppAction(url, 'notify', { text: 'hi' }, {});
  expect(outcome.ok).toBe(true);
  expect(calls.map((c) => c.path)).toEqual(['/', '/api/v1/automations/action/execute']);
});
