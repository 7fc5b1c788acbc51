import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import type { DatabaseOption } from '../../src/db/open-driver.js';
import {
  type RunningWorkspace,
  type StartWorkspaceOptions,
  startWorkspace,
} from '../../src/start-workspace.js';

// Every test file runs on PGlite and, when WEFT_TEST_DATABASE_URL is set, again on that Postgres
// server, each suite in a Postgres schema of its own that is dropped afterwards.

const PG_URL = process.env.WEFT_TEST_DATABASE_URL;
let told = false;

export interface DatabaseTarget {
  name: string;
  /** a fresh empty database and a function that removes it */
  create(): Promise<{ database: DatabaseOption; drop(): Promise<void> }>;
}

const pglite: DatabaseTarget = {
  name: 'pglite',
  create: async () => ({ database: { kind: 'memory' }, drop: async () => {} }),
};

const postgres = (url: string): DatabaseTarget => ({
  name: 'postgres',
  create: async () => {
    const schema = `weft_test_${randomBytes(6).toString('hex')}`;
    return {
      database: { kind: 'postgres', url, schema },
      drop: async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        } finally {
          await client.end();
        }
      },
    };
  },
});

export function databaseTargets(): DatabaseTarget[] {
  if (!PG_URL) {
    if (!told) {
      told = true;
      console.log('workspace tests: the Postgres run is skipped because WEFT_TEST_DATABASE_URL is not set');
    }
    return [pglite];
  }
  return [pglite, postgres(PG_URL)];
}

/** describe() once per database target. */
export function describeEachDatabase(name: string, body: (target: DatabaseTarget) => void): void {
  for (const target of databaseTargets()) describe(`${name} [${target.name}]`, () => body(target));
}

export interface Harness {
  ws: RunningWorkspace;
  database: DatabaseOption;
  url: string;
  token: string;
  /** POST /api/commands; returns the parsed array */
  commands(commands: unknown, token?: string): Promise<any[]>;
  /**
   * one command; throws with the error when it failed. A svc.command/batch's inner elements are
   * checked to be {success: true, result} and its inner results returned (at every level).
   */
  run(command: string, args?: Record<string, unknown>, token?: string): Promise<any>;
  /** one command; returns its raw result element */
  attempt(command: string, args?: Record<string, unknown>, token?: string): Promise<any>;
  request(
    method: string,
    path: string,
    body?: unknown,
    token?: string | null,
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

/** Starts one workspace for the enclosing describe (rate limit off unless asked). */
export function useWorkspace(target: DatabaseTarget, options: StartWorkspaceOptions = {}): Harness {
  let drop: () => Promise<void> = async () => {};
  const h = {} as Harness;
  beforeAll(async () => {
    const created = await target.create();
    drop = created.drop;
    h.database = created.database;
    const ws = await startWorkspace({
      rateLimit: 0,
      adminToken: `admin-${randomBytes(8).toString('hex')}`,
      webhooks: { pollMs: 100, backoffMs: () => 200, timeoutMs: 2000 },
      log: () => {},
      ...options,
      database: created.database,
    });
    h.ws = ws;
    h.url = ws.url;
    h.token = ws.adminToken!;
  });
  afterAll(async () => {
    await h.ws?.close();
    await drop();
  });
  h.request = async (method, path, body, token) => {
    const headers: Record<string, string> = {};
    const auth = token === undefined ? h.token : token;
    if (auth !== null) headers.authorization = `Token ${auth}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${h.url}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers };
  };
  h.commands = async (commands, token) => {
    const res = await h.request('POST', '/api/commands', commands, token);
    if (res.status !== 200)
      throw new Error(`POST /api/commands answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as any[];
  };
  h.attempt = async (command, args = {}, token) => (await h.commands([{ command, args }], token))[0];
  h.run = async (command, args = {}, token) => {
    const r = await h.attempt(command, args, token);
    if (!r.success) throw new Error(`${command} failed: ${JSON.stringify(r.error)}`);
    return command === 'svc.command/batch' ? innerResults(args.commands, r.result) : r.result;
  };
  return h;
}

/** The inner results of a svc.command/batch answer, each element checked to be {success: true, result}. */
export function innerResults(commands: unknown, elements: unknown): unknown[] {
  if (!Array.isArray(elements)) throw new Error(`a batch answered ${JSON.stringify(elements)}`);
  return elements.map((e, i) => {
    if (e?.success !== true || !('result' in e))
      throw new Error(`inner element ${i} is not {success: true, result}: ${JSON.stringify(e)}`);
    const inner = Array.isArray(commands) ? commands[i] : undefined;
    return inner?.command === 'svc.command/batch' ? innerResults(inner.args?.commands, e.result) : e.result;
  });
}

/** The five mandatory fields plus extra ones, as schema.type/create wants them. */
export function typeArgs(
  name: string,
  extra: Array<[string, string, Record<string, unknown>?]> = [],
  meta = {},
) {
  const app = name.split('/')[0];
  return {
    'svc/name': name,
    'svc/meta': meta,
    'svc/fields': [
      { 'svc/name': 'svc/id', 'svc/type': 'svc/uuid' },
      { 'svc/name': 'svc/public-id', 'svc/type': 'svc/text' },
      { 'svc/name': 'svc/creation-date', 'svc/type': 'svc/date-time' },
      { 'svc/name': 'svc/modification-date', 'svc/type': 'svc/date-time' },
      { 'svc/name': `${app}/name`, 'svc/type': 'svc/text', 'svc/meta': { 'ui/title?': true } },
      ...extra.map(([n, t, m]) => ({ 'svc/name': n, 'svc/type': t, 'svc/meta': m ?? {} })),
    ],
  };
}
