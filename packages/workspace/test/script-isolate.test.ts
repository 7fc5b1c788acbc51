import { beforeAll, expect, it } from 'vitest';
import { AUTHOR, BOOK, type Seeded, seedBookshelf, waitFor } from './support/bookshelf-seed.js';
import { describeEachDatabase, useWorkspace } from './support/databases.js';
import { plantSecrets } from './support/planted-secrets.js';

// A script run by a real workspace (through the automations API and its job queue) against the
// workspace's own services: the ways out of the old node:vm sandbox reach nothing, the workspace's
// secrets (its secret key, its admin token, the caller's token) appear nowhere in the run, and what
// the script sends through `svc` pollutes no prototype of the workspace.

const SECRET = 'script-isolate-secret-key-5f0e2c9a7b31d4';
const ADMIN = 'script-isolate-admin-token-8c1d7e3a904b2f';
plantSecrets(SECRET, ADMIN);

const ESCAPES = `
  const found = [];
  const tryIt = (f) => { try { found.push(String(f())); } catch (e) { found.push('threw ' + e.name); } };
  try { await import('node:fs'); } catch (e) { tryIt(() => e.constructor.constructor('return process.env')()); }
  const svc = context.getService('svc');
  for (const f of [context, context.getService, svc, svc.createEntity, console.log, args, args.currentEntities[0], args.currentUser])
    tryIt(() => f.constructor.constructor('return JSON.stringify(process.env)')());
  tryIt(() => typeof process + typeof require + typeof globalThis.process);
  let refused;
  try {
    await svc.createEntity('${AUTHOR}', JSON.parse(
      '{"bookshelf/name": "Polluter", "__proto__": {"isAdmin": true}, "constructor": {"prototype": {"isAdmin": true}}}'));
  } catch (e) { refused = e.message; }
  const made = await svc.createEntity('${AUTHOR}', { 'bookshelf/name': 'Polluter' });
  const read = await svc.getEntityById('${AUTHOR}', made['svc/id'], ['bookshelf/name']);
  tryIt(() => read.constructor.constructor('return process')());
  console.log('found', found);
  return { found, refused, name: read['bookshelf/name'] };
`;

describeEachDatabase('script isolate in the workspace', (target) => {
  const h = useWorkspace(target);
  let seeded: Seeded;
  beforeAll(async () => {
    seeded = await seedBookshelf(h, 1);
  });

  it('a script finds no way out and sees none of the workspace’s secrets', async () => {
    const created = await h.request('POST', '/api/automations', {
      name: 'Escapes',
      trigger: 'button',
      type: BOOK,
      action: { kind: 'script', code: ESCAPES, timeoutMs: 20_000 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = (created.body as { id: string }).id;
    await h.request('POST', `/api/automations/${id}/run`, { entityIds: [seeded.books[0]] });
    const [run] = await waitFor('the run', async () => {
      const runs = (await h.request('GET', `/api/automations/runs?automation=${id}`)).body as Array<{
        state: string;
      }>;
      return runs.some((r) => r.state === 'done' || r.state === 'failed') ? runs : undefined;
    });
    const text = JSON.stringify(run);
    for (const secret of [SECRET, ADMIN, h.token]) expect(text.includes(secret)).toBe(false);
    expect(run).toMatchObject({ state: 'done', message: null });
    const answer = (run as unknown as { answer: { found: string[]; refused: string; name: string } }).answer;
    expect(answer.name).toBe('Polluter');
    expect(answer.refused).toBe('Type bookshelf/author has no field "__proto__"');
    expect(answer.found).toEqual([
      ...Array(9).fill('threw EvalError'),
      'undefinedundefinedundefined',
      'threw EvalError',
    ]);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });
});
