import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { HostedWorkspace } from '../src/host/start-hosted-workspace.js';
import { type ChatInbox, INBOX_TYPE } from '../src/quickstart/chat-inbox.js';
import { startQuickStartWorkspace } from './support/quick-start-workspace.js';
import { ensureSampleRule } from '../src/quickstart/sample-rule.js';
import { waitFor } from './support/bookshelf-seed.js';
import { describeEachDatabase } from './support/databases.js';

// Every example of docs/automations.md, run as printed against the quick start's workspace:
// bookshelf synced, the real chat-notify app, the local chat receiver and the sample rule. Shell
// blocks run in `sh` with curl (the quick start's fixed addresses replaced by this test's), script
// blocks as a button's script on a book; each must succeed.

const run = promisify(execFile);
const DOC = readFileSync(new URL('../../../docs/automations.md', import.meta.url), 'utf8');
const blocks = (lang: string) =>
  [...DOC.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]!);

describeEachDatabase('docs/automations.md examples', (target) => {
  const TOKEN = 'automations-docs-admin-token';
  let chatNotifyUrl = '';
  let inbox: ChatInbox;
  let ws: HostedWorkspace;
  let close: () => Promise<void> = async () => {};

  const command = async (name: string, args: unknown) => {
    const [result] = await ws.execute([{ command: name, args }]);
    expect(result?.success, JSON.stringify(result)).toBe(true);
    return (result as { result: any }).result;
  };
  const messages = async () =>
    (
      (await command('svc.entity/query', {
        query: { 'q/from': INBOX_TYPE, 'q/select': ['inbox/name'], 'q/limit': 'q/no-limit' },
      })) as Array<{ 'inbox/name': string }>
    ).map((m) => m['inbox/name']);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${ws.url}${path}`, {
      method,
      headers: { authorization: `Token ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status, `${method} ${path}`).toBeLessThan(300);
    return res.json() as Promise<any>;
  };
  const finishedRun = (id: string) =>
    waitFor(
      'the run to finish',
      async () =>
        ((await api('GET', `/api/automations/runs?automation=${id}`)) as Array<Record<string, any>>).find(
          (r) => r.state === 'done' || r.state === 'failed',
        ),
      30_000,
    );
  /** Runs `code` as a script button on `entity`; answers the finished run. */
  const runScript = async (code: string, entity: string) => {
    const button = await api('POST', '/api/automations', {
      name: `Script ${Math.random()}`,
      trigger: 'button',
      type: 'bookshelf/book',
      action: { kind: 'script', code },
    });
    await api('POST', `/api/automations/${button.id}/run`, { entityIds: [entity] });
    return finishedRun(button.id);
  };

  let book = '';
  beforeAll(async () => {
    ({ ws, chatNotifyUrl, inbox, close } = await startQuickStartWorkspace(target, {
      adminToken: TOKEN,
      secretKey: 'automations-docs-key',
    }));
    expect(await ensureSampleRule(ws, { chatNotifyUrl, inboxUrl: inbox.url })).toMatchObject({
      created: true,
    });
    const [first] = await command('svc.entity/query', {
      query: { 'q/from': 'bookshelf/book', 'q/select': ['svc/id'], 'q/limit': 1 },
    });
    book = first['svc/id'];
  }, 180_000);
  afterAll(() => close());

  it('runs every shell example as printed (curl), and the rules they add post to the chat receiver', async () => {
    const shell = blocks('sh');
    expect(shell.length).toBeGreaterThanOrEqual(4);
    const pressed = await api('POST', '/api/automations', {
      name: 'Pressed from the docs',
      trigger: 'button',
      type: 'bookshelf/book',
      action: { kind: 'script', code: 'return args.currentEntities.length;' },
    });
    const host = new URL(ws.url).host;
    for (const code of shell) {
      const printed = code
        .replaceAll('http://localhost:3102', chatNotifyUrl)
        .replaceAll('http://127.0.0.1:3107/hook', inbox.url)
        .replaceAll('localhost:3100', host);
      const { stdout } = await run('sh', ['-c', printed], {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          WEFT_ADMIN_TOKEN: TOKEN,
          TOKEN,
          AUTOMATION: pressed.id,
          ENTITY: book,
        },
      });
      const answer = JSON.parse(stdout);
      expect(answer, code).not.toHaveProperty('code');
      if (Array.isArray(answer)) for (const r of answer) expect(r.success, `${code}\n${stdout}`).toBe(true);
    }
    // The quick start's rule posted the book the first example added.
    await waitFor('the new book in the chat', async () =>
      (await messages()).some((m) => m.startsWith('New book: My first book')) ? true : undefined,
    );
    // The rule of the second example posts when a book's page count changes.
    await command('svc.entity/update', {
      type: 'bookshelf/book',
      entity: { 'svc/id': book, 'bookshelf/pages': 4321 },
    });
    await waitFor('the page count in the chat', async () =>
      (await messages()).some((m) => m.endsWith('now has 4321 pages')) ? true : undefined,
    );
    expect(await finishedRun(pressed.id)).toMatchObject({ state: 'done', answer: 1 });
  }, 120_000);

  it('runs every script example as a button on a book', async () => {
    const scripts = blocks('js');
    expect(scripts.length).toBeGreaterThanOrEqual(2);
    for (const code of scripts) {
      const finished = await runScript(code, book);
      expect(finished, `${code}\n(the run said: ${finished.message})`).toMatchObject({ state: 'done' });
    }
  }, 120_000);

  it('leaves the effects of the calls before a failing one (not a transaction, as in the service)', async () => {
    const failed = await runScript(
      `const svc = context.getService('svc');
       await svc.createEntity('bookshelf/author', { 'bookshelf/name': 'Written before the failure' });
       await svc.addComment('bookshelf/genre', args.currentEntities[0].Id, 'never', args.currentUser.Id, 'md');`,
      book,
    );
    expect(failed.state).toBe('failed');
    expect(failed.message).toContain('bookshelf/genre has no comments: install the Comments extension');
    const [author] = await command('svc.entity/query', {
      query: {
        'q/from': 'bookshelf/author',
        'q/select': ['svc/id'],
        'q/where': ['=', ['bookshelf/name'], '$n'],
        'q/limit': 1,
      },
      params: { $n: 'Written before the failure' },
    });
    expect(author).toBeDefined();
  }, 60_000);
});
