import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { StartWorkspaceOptions } from '@weft/workspace';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, useWorkspace } from '../../packages/workspace/test/support/databases.js';

// The npm package fibery-unofficial, written for the real service, drives every operation it
// offers (schema, types, fields, relations, single-selects, entities, collections, queries,
// commands, files, documents) against `weft workspace` in the `fibery` namespace over HTTPS, with
// no proxy and no change to the client. It runs in a process of its own (drive-fibery-unofficial.cjs)
// that trusts the workspace's self-signed certificate through NODE_EXTRA_CA_CERTS, as a user would.
// Every effect is then read back in process, in the workspace's own names.

const run = promisify(execFile);
const DRIVER = join(import.meta.dirname, 'drive-fibery-unofficial.cjs');
const PROJECT = '11111111-1111-4111-8111-111111111111';
const LAUNCH = '22222222-2222-4222-8222-222222222222';
const LAND = '33333333-3333-4333-8333-333333333333';

const pair = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
  keySize: 2048,
  extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
});

type Step = { ok: true; value: any } | { ok: false; error: string };

describeEachDatabase('fibery-unofficial, unchanged, against weft workspace', (target) => {
  const options: StartWorkspaceOptions & { namespace: string } = {
    namespace: 'fibery',
    tls: { cert: pair.cert, key: pair.private },
  };
  const h = useWorkspace(target, options);
  let dir = '';
  let out: Record<string, Step> = {};
  const value = (name: string) => {
    const step = out[name];
    expect(step, `step ${name} did not run`).toBeDefined();
    if (!step!.ok) expect.fail(`${name}: ${step!.error}`);
    return step!.value;
  };
  const svc = async (command: string, args: Record<string, unknown> = {}) => {
    const [r] = await h.ws.execute([{ command, args }]);
    if (!r?.success) throw new Error(`${command}: ${JSON.stringify(r)}`);
    return r.result as any;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'weft-real-client-'));
    writeFileSync(join(dir, 'cert.pem'), pair.cert);
    const { stdout } = await run(process.execPath, [DRIVER], {
      cwd: import.meta.dirname,
      env: {
        ...process.env,
        NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem'),
        FIBERY_HOST: new URL(h.url).host,
        FIBERY_TOKEN: h.token,
        WORK_DIR: dir,
      },
      timeout: 90_000,
    });
    out = JSON.parse(stdout);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs to the end', () => {
    expect(out.crashed).toBeUndefined();
    expect(h.url).toMatch(/^https:/);
  });

  it('reads the schema in the fibery namespace', () => {
    expect(value('schema')).toEqual(expect.arrayContaining(['fibery/user', 'fibery/file']));
  });

  it('creates, renames and deletes types; creates, renames and deletes fields, relations and single-selects', async () => {
    for (const step of [
      'types.create',
      'types.rename',
      'types.delete',
      'fields.create',
      'fields.rename',
      'fields.delete',
    ])
      value(step);
    const schema = await svc('svc.schema/query');
    const types = new Map<string, any>(schema['svc/types'].map((t: any) => [t['svc/name'], t]));
    expect(types.has('Rc/Scratch') || types.has('Rc/Temp')).toBe(false);
    const task = types.get('Rc/Task');
    expect(task['svc/meta']).toMatchObject({
      'svc/domain?': true,
      'ui/color': '#F7D130',
      'app/mixins': { 'svc/rank-mixin': true },
    });
    const fields = new Map<string, any>(task['svc/fields'].map((f: any) => [f['svc/name'], f]));
    expect([...fields.keys()]).toEqual(
      expect.arrayContaining([
        'svc/id',
        'svc/public-id',
        'svc/creation-date',
        'svc/modification-date',
        'svc/name',
        'svc/rank',
      ]),
    );
    expect(fields.get('Rc/Points')['svc/type']).toBe('svc/int');
    expect(fields.get('Rc/Renamed')['svc/type']).toBe('svc/text');
    expect(fields.has('Rc/Extra') || fields.has('Rc/Notes')).toBe(false);
    expect(fields.get('Rc/Description')['svc/type']).toBe('Collaboration~Documents/Document');
    const relation = fields.get('Rc/Project')['svc/meta']['svc/relation'];
    const back = types.get('Rc/Project')['svc/fields'].find((f: any) => f['svc/name'] === 'Rc/Tasks');
    expect(back['svc/meta']).toMatchObject({ 'svc/relation': relation, 'svc/collection?': true });
    expect(fields.get('Rc/Status')['svc/type']).toBe('Rc/Status_Rc/Task');
    expect(fields.get('Rc/Status')['svc/meta']).toMatchObject({ 'svc/required?': true });
    const options = await svc('svc.entity/query', {
      query: {
        'q/from': 'Rc/Status_Rc/Task',
        'q/select': ['enum/name', 'svc/rank'],
        'q/order-by': [[['svc/rank'], 'q/asc']],
      },
    });
    expect(options).toEqual([
      { 'enum/name': 'Open', 'svc/rank': 0 },
      { 'enum/name': 'Done', 'svc/rank': 1_000_000 },
    ]);
    expect(value('selects.query').map((o: any) => o['enum/name'])).toEqual(['Open', 'Done']);
  });

  it('creates, updates, links, queries, unlinks and deletes entities', async () => {
    expect(value('entities.create').map((e: any) => e['fibery/name'])).toEqual(['Apollo', 'Launch', 'Land']);
    expect(value('entities.update')[0]).toMatchObject({
      'fibery/id': LAUNCH,
      'Rc/Points': 8,
      'Rc/Project': { 'fibery/id': PROJECT },
    });
    value('collections.add');
    expect(value('entities.query')).toEqual([
      {
        'fibery/name': 'Apollo',
        'Rc/Tasks': [
          { 'fibery/name': 'Land', 'Rc/Points': 5, 'Rc/Status': { 'enum/name': 'Open' } },
          { 'fibery/name': 'Launch', 'Rc/Points': 8, 'Rc/Status': { 'enum/name': 'Done' } },
        ],
      },
    ]);
    expect(value('commands.execute').map((e: any) => e['fibery/name'])).toEqual(['Launch', 'Land']);
    value('collections.remove');
    value('entities.delete');
    const tasks = await svc('svc.entity/query', {
      query: {
        'q/from': 'Rc/Task',
        'q/select': [
          'svc/id',
          'svc/name',
          'Rc/Points',
          'Rc/Renamed',
          { 'Rc/Project': ['svc/name'] },
          { 'Rc/Status': ['enum/name'] },
        ],
      },
    });
    expect(tasks).toEqual([
      {
        'svc/id': LAUNCH,
        'svc/name': 'Launch',
        'Rc/Points': 8,
        'Rc/Renamed': 'renamed field',
        'Rc/Project': { 'svc/name': 'Apollo' },
        'Rc/Status': { 'enum/name': 'Done' },
      },
    ]);
    expect(tasks.some((t: any) => t['svc/id'] === LAND)).toBe(false);
  });

  it('gets the workspace’s message when a command fails', () => {
    const failure = out.failure!;
    expect(failure.ok).toBe(false);
    expect(!failure.ok && failure.error).toMatch(
      /Error while executing command 'fibery\.entity\/create': .*Rc\/Nope/,
    );
  });

  it('uploads and downloads a file', async () => {
    const file = value('files.upload');
    expect(file).toMatchObject({ 'fibery/name': 'hello.txt', 'fibery/secret': expect.any(String) });
    expect(value('files.download')).toBe('hello from fibery-unofficial');
    const [stored] = await svc('svc.entity/query', {
      query: { 'q/from': 'svc/file', 'q/select': ['svc/name'], 'q/where': ['=', ['svc/id'], '$id'] },
      params: { $id: file['fibery/id'] },
    });
    expect(stored).toEqual({ 'svc/name': 'hello.txt' });
  });

  it('writes and reads a rich-text document in md, html and json, one at a time and in a batch', () => {
    value('documents.update');
    const md = value('documents.get');
    expect(md.content).toBe('# Plan\n\nGo **now**');
    expect(value('documents.get.html').content).toBe('<h1>Plan</h1>\n<p>Go <strong>now</strong></p>');
    expect(value('documents.get.json').content.doc.content[0]).toEqual({
      type: 'heading',
      attrs: { level: 1 },
      content: [{ type: 'text', text: 'Plan' }],
    });
    expect(value('documents.getBatch')).toEqual([{ secret: md.secret, content: '# Plan\n\nGo **now**' }]);
    expect(value('documents.update.html').content).toBe('Now _html_');
  });
});
