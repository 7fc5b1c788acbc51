import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DatabaseOption } from '../src/db/open-driver.js';
import { type RunningWorkspace, startWorkspace } from '../src/start-workspace.js';
import { databaseTargets } from './support/databases.js';
import { cookieFrom, formTokenIn, logIn, loginForm } from './support/page-session.js';

// Page sessions live in the workspace's database: a session (and a login form) made by one
// process is taken by any other on the same database, and by the same folder after a restart; and
// what the database holds of a session is of no use without its cookie. On PGlite one process at a
// time opens a data folder, so the second workspace opens it after the first has closed; on
// Postgres both run at once.

const ADMIN = `admin-${randomBytes(8).toString('hex')}`;
const start = (database: DatabaseOption) =>
  startWorkspace({ database, rateLimit: 0, adminToken: ADMIN, webhooks: false, log: () => {} });

const overview = (ws: RunningWorkspace, cookie: string) =>
  fetch(`${ws.url}/ui`, { headers: { cookie }, redirect: 'manual' });

const logOut = (ws: RunningWorkspace, cookie: string, formToken: string) =>
  fetch(`${ws.url}/ui/logout`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: formToken }).toString(),
    redirect: 'manual',
  });

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

for (const target of databaseTargets()) {
  describe(`page sessions [${target.name}]`, () => {
    /** The database both workspaces use (a data folder on PGlite), dropped after the tests. */
    async function shared(): Promise<DatabaseOption> {
      if (target.name === 'pglite') {
        const dir = await mkdtemp(join(tmpdir(), 'weft-sessions-'));
        cleanups.push(() => rm(dir, { recursive: true, force: true }));
        return { kind: 'pglite', dataDir: dir };
      }
      const created = await target.create();
      cleanups.push(created.drop);
      return created.database;
    }

    /**
     * Runs `first` on one workspace and `second` on another of the same database: at the same time
     * on Postgres, one after the other on PGlite.
     */
    async function twoProcesses<T>(
      first: (ws: RunningWorkspace) => Promise<T>,
      second: (ws: RunningWorkspace, made: T) => Promise<void>,
    ): Promise<void> {
      const database = await shared();
      let a: RunningWorkspace | undefined = await start(database);
      let b: RunningWorkspace | undefined;
      try {
        const made = await first(a);
        if (target.name === 'pglite') {
          await a.close();
          a = undefined;
        }
        b = await start(database);
        await second(b, made);
      } finally {
        await b?.close();
        await a?.close();
      }
    }

    it('serves a session made by another process, with the same form token, until it logs out', async () => {
      await twoProcesses(
        (a) => logIn(a.url, ADMIN),
        async (b, session) => {
          const page = await overview(b, session.cookie);
          expect(page.status).toBe(200);
          expect(formTokenIn(await page.text())).toBe(session.formToken);
          const out = await logOut(b, session.cookie, session.formToken);
          expect(out.status).toBe(303);
          expect((await overview(b, session.cookie)).status).toBe(303);
        },
      );
    });

    it('takes a login form another process served', async () => {
      await twoProcesses(
        (a) => loginForm(a.url),
        async (b, form) => {
          const res = await fetch(`${b.url}/ui/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
            body: new URLSearchParams({ token: ADMIN, csrf: form.formToken }).toString(),
            redirect: 'manual',
          });
          expect(res.status).toBe(303);
          const cookie = cookieFrom(res, 'weft_page')!;
          expect((await overview(b, cookie)).status).toBe(200);
        },
      );
    });

    it('keeps neither the session id nor the token in the database, and ends expired sessions', async () => {
      const ws = await start(await shared());
      try {
        const { cookie } = await logIn(ws.url, ADMIN);
        const id = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
        const { rows } = await ws.driver.query<{ row: string }>(
          `SELECT row_to_json(s)::text AS row FROM svc_page_sessions s`,
        );
        expect(rows).toHaveLength(1);
        expect(rows[0]!.row).not.toContain(id);
        expect(rows[0]!.row).not.toContain(ADMIN);
        // A cookie of the right length but another value finds no session.
        const forged = `weft_page=${randomBytes(32).toString('base64url')}`;
        expect((await overview(ws, forged)).status).toBe(303);
        // Past its time a session is refused, and dropped when the next one is made.
        await ws.driver.query(`UPDATE svc_page_sessions SET expires = now() - interval '1 second'`);
        expect((await overview(ws, cookie)).status).toBe(303);
        await logIn(ws.url, ADMIN);
        const left = await ws.driver.query(`SELECT 1 FROM svc_page_sessions`);
        expect(left.rows).toHaveLength(1);
      } finally {
        await ws.close();
      }
    });
  });
}
