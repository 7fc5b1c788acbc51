import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

describeEachDatabase('documents, comments and files', (target) => {
  const h = useWorkspace(target);
  let source: Server;
  let sourceUrl = '';
  const seen: Array<{ method: string; auth: string | undefined }> = [];

  beforeAll(async () => {
    await h.run('schema.type/create', typeArgs('d/note'));
    await h.run('schema.field/create', {
      'svc/holder-type': 'd/note',
      'svc/name': 'd/body',
      'svc/type': 'Collaboration~Documents/Document',
      'svc/meta': { 'svc/entity-component?': true },
    });
    await h.run('svc.app/install-mixins', {
      types: { 'd/note': ['comments/comments-mixin', 'Files/Files-mixin'] },
    });
    source = createServer((req, res) => {
      seen.push({ method: req.method ?? '', auth: req.headers.authorization });
      if (req.url === '/missing.txt') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('from the source');
    });
    await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
    sourceUrl = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => source.close(() => r())));

  async function secretOf(id: string) {
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': 'd/note',
        'q/select': [{ 'd/body': ['Collaboration~Documents/secret'] }],
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: id },
    });
    return row['d/body']['Collaboration~Documents/secret'] as string;
  }

  it('a rich-text field: read the secret, then GET and PUT the document as md or html', async () => {
    const note = await h.run('svc.entity/create', { type: 'd/note', entity: { 'd/name': 'n' } });
    const secret = await secretOf(note['svc/id']);
    expect((await h.request('GET', `/api/documents/${secret}?format=md`)).body).toEqual({
      secret,
      content: '',
    });
    expect(
      (
        await h.request('PUT', `/api/documents/${secret}?format=md`, {
          content: '# Title\n\nSome **bold** text',
        })
      ).status,
    ).toBe(200);
    expect((await h.request('GET', `/api/documents/${secret}?format=md`)).body.content).toBe(
      '# Title\n\nSome **bold** text',
    );
    const html = (await h.request('GET', `/api/documents/${secret}?format=html`)).body.content;
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong>');
    const put = await h.request('PUT', `/api/documents/${secret}?format=html`, {
      content: '<p>Hello <em>you</em></p>',
    });
    // Answered `true`, as the service answers it.
    expect(put).toMatchObject({ status: 200, body: true });
    expect((await h.request('GET', `/api/documents/${secret}`)).body.content).toBe('Hello _you_');
    // The format may come in the body instead of the query (the service's own page sends it so).
    await h.request('PUT', `/api/documents/${secret}`, { content: '<p>In <b>body</b></p>', format: 'html' });
    expect((await h.request('GET', `/api/documents/${secret}`)).body.content).toBe('In **body**');
  });

  it('deleting an entity deletes its rich-text documents', async () => {
    const note = await h.run('svc.entity/create', { type: 'd/note', entity: {} });
    const secret = await secretOf(note['svc/id']);
    await h.request('PUT', `/api/documents/${secret}`, { content: 'bye' });
    await h.run('svc.entity/delete', { type: 'd/note', entity: { 'svc/id': note['svc/id'] } });
    expect((await h.request('GET', `/api/documents/${secret}`)).status).toBe(404);
  });

  it('document errors: unknown format 400, bad secret 400, unknown secret 404, content not a string 400', async () => {
    const secret = await secretOf(
      (await h.run('svc.entity/create', { type: 'd/note', entity: {} }))['svc/id'],
    );
    expect((await h.request('GET', `/api/documents/${secret}?format=docx`)).status).toBe(400);
    expect((await h.request('GET', '/api/documents/not-a-uuid')).status).toBe(400);
    expect((await h.request('GET', `/api/documents/${randomUUID()}`)).status).toBe(404);
    expect((await h.request('PUT', `/api/documents/${secret}`, { content: 5 })).status).toBe(400);
  });

  it('the document batch commands (with Bearer): create-or-update-documents and get-documents', async () => {
    const a = randomUUID();
    const b = randomUUID();
    const post = async (path: string, body: unknown) =>
      fetch(`${h.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const write = await post('/api/documents/commands?format=md', {
      command: 'create-or-update-documents',
      args: [
        { secret: a, content: 'one' },
        { secret: b, content: 'two' },
      ],
    });
    expect(write.status).toBe(200);
    const read = await post('/api/documents/commands', {
      command: 'get-documents',
      args: [{ secret: a }, { secret: b }],
    });
    expect(await read.json()).toEqual([
      { secret: a, content: 'one' },
      { secret: b, content: 'two' },
    ]);
    expect((await post('/api/documents/commands', { command: 'nope', args: [] })).status).toBe(400);
  });

  it('adding a comment: the four-step flow', async () => {
    const note = await h.run('svc.entity/create', { type: 'd/note', entity: { 'd/name': 'commented' } });
    const commentId = randomUUID();
    const secret = randomUUID();
    const [created, linked] = await h.run('svc.command/batch', {
      commands: [
        {
          command: 'svc.entity/create',
          args: {
            type: 'comments/comment',
            entity: {
              'svc/id': commentId,
              'comment/document-secret': secret,
              'comment/author': { 'svc/id': h.ws.adminUserId },
            },
          },
        },
        {
          command: 'svc.entity/add-collection-items',
          args: {
            type: 'd/note',
            field: 'comments/comments',
            entity: { 'svc/id': note['svc/id'] },
            items: [{ 'svc/id': commentId }],
          },
        },
      ],
    });
    expect(created).toMatchObject({
      'svc/id': commentId,
      'svc/public-id': expect.any(String),
      'svc/creation-date': expect.any(String),
      'comment/document-secret': secret,
      'comment/content': null,
      'comment/author': { 'svc/id': h.ws.adminUserId },
    });
    expect(linked).toBeNull();
    await h.request('POST', '/api/documents/commands?format=md', {
      command: 'create-or-update-documents',
      args: [{ secret, content: 'Nice!' }],
    });
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': 'd/note',
        'q/select': [{ 'comments/comments': { 'q/select': ['comment/content'], 'q/limit': 'q/no-limit' } }],
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: note['svc/id'] },
    });
    expect(row['comments/comments']).toEqual([{ 'comment/content': 'Nice!' }]);
  });

  it('a batch of documents: a secret written twice keeps its last text, a comment among them shows its own', async () => {
    const commentId = randomUUID();
    const secret = randomUUID();
    const other = randomUUID();
    await h.run('svc.entity/create', {
      type: 'comments/comment',
      entity: {
        'svc/id': commentId,
        'comment/document-secret': secret,
        'comment/author': { 'svc/id': h.ws.adminUserId },
      },
    });
    const write = await h.request('POST', '/api/documents/commands?format=html', {
      command: 'create-or-update-documents',
      args: [
        { secret: other, content: '<p>first</p>' },
        // a uuid in capitals names the same document
        { secret: secret.toUpperCase(), content: '<p><strong>Well</strong> done</p>' },
        { secret: other, content: '<p>last</p>' },
      ],
    });
    expect(write.status).toBe(200);
    const read = await h.request('POST', '/api/documents/commands?format=md', {
      command: 'get-documents',
      args: [{ secret: other }, { secret }],
    });
    expect(read.body).toEqual([
      { secret: other, content: 'last' },
      { secret, content: '**Well** done' },
    ]);
    const [comment] = await h.run('svc.entity/query', {
      query: {
        'q/from': 'comments/comment',
        'q/select': ['comment/content'],
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: commentId },
    });
    expect(comment['comment/content']).toBe('**Well** done');
  });

  // What an entity owns goes with it, whether the entity or its whole type is deleted; a comment
  // another entity also holds stays.
  it.each([
    { deleted: 'the entity', command: 'svc.entity/delete' },
    { deleted: 'its type (delete-entities? true)', command: 'schema.type/delete' },
  ])('deleting $deleted removes its rich-text documents and its comments', async (c) => {
    const type = `o${randomUUID().slice(0, 8)}/card`;
    await h.run('schema.type/create', typeArgs(type));
    await h.run('schema.field/create', {
      'svc/holder-type': type,
      'svc/name': 'o/body',
      'svc/type': 'Collaboration~Documents/Document',
      'svc/meta': { 'svc/entity-component?': true },
    });
    await h.run('svc.app/install-mixins', { types: { [type]: ['comments/comments-mixin'] } });
    const card = await h.run('svc.entity/create', { type, entity: {} });
    const keep = await h.run('svc.entity/create', {
      type: 'd/note',
      entity: { 'd/name': 'keeps a comment' },
    });
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': type,
        'q/select': [{ 'o/body': ['svc/id', 'Collaboration~Documents/secret'] }],
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: card['svc/id'] },
    });
    const docSecret = row['o/body']['Collaboration~Documents/secret'] as string;
    const comment = (holders: Array<[string, string]>) => {
      const id = randomUUID();
      const secret = randomUUID();
      return {
        id,
        secret,
        commands: [
          {
            command: 'svc.entity/create',
            args: { type: 'comments/comment', entity: { 'svc/id': id, 'comment/document-secret': secret } },
          },
          ...holders.map(([t, e]) => ({
            command: 'svc.entity/add-collection-items',
            args: { type: t, field: 'comments/comments', entity: { 'svc/id': e }, items: [{ 'svc/id': id }] },
          })),
        ],
      };
    };
    const own = comment([[type, card['svc/id']]]);
    const shared = comment([
      [type, card['svc/id']],
      ['d/note', keep['svc/id']],
    ]);
    await h.run('svc.command/batch', { commands: [...own.commands, ...shared.commands] });
    await h.request('POST', '/api/documents/commands', {
      command: 'create-or-update-documents',
      args: [
        { secret: docSecret, content: 'body' },
        { secret: own.secret, content: 'own comment' },
        { secret: shared.secret, content: 'shared comment' },
      ],
    });
    await h.run(
      c.command,
      c.command === 'svc.entity/delete'
        ? { type, entity: { 'svc/id': card['svc/id'] } }
        : { name: type, 'delete-entities?': true },
    );
    expect((await h.request('GET', `/api/documents/${docSecret}`)).status).toBe(404);
    expect((await h.request('GET', `/api/documents/${own.secret}`)).status).toBe(404);
    expect((await h.request('GET', `/api/documents/${shared.secret}`)).body.content).toBe('shared comment');
    const ids = (from: string, id: string) =>
      h.run('svc.entity/query', {
        query: { 'q/from': from, 'q/select': ['svc/id'], 'q/where': ['=', ['svc/id'], '$id'] },
        params: { $id: id },
      });
    expect(await ids('Collaboration~Documents/Document', row['o/body']['svc/id'])).toEqual([]);
    expect(await ids('comments/comment', own.id)).toEqual([]);
    expect(await ids('comments/comment', shared.id)).toEqual([{ 'svc/id': shared.id }]);
  });

  it('files: multipart upload, streamed download, attach through Files/Files, query the secrets', async () => {
    const bytes = Buffer.alloc(600 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) % 251;
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'application/octet-stream' }), 'data.bin');
    const up = await fetch(`${h.url}/api/files`, {
      method: 'POST',
      headers: { authorization: `Token ${h.token}` },
      body: form,
    });
    expect(up.status).toBe(200);
    const file = (await up.json()) as Record<string, string>;
    // The size under the service's own name, as its upload answers it.
    expect(file).toEqual({
      'svc/id': expect.any(String),
      'svc/name': 'data.bin',
      'svc/content-type': 'application/octet-stream',
      'svc/secret': expect.any(String),
      'svc/content-length': bytes.length,
    });
    const down = await fetch(`${h.url}/api/files/${file['svc/secret']}`, {
      headers: { authorization: `Token ${h.token}` },
    });
    expect(down.status).toBe(200);
    expect(Buffer.from(await down.arrayBuffer()).equals(bytes)).toBe(true);
    const note = await h.run('svc.entity/create', { type: 'd/note', entity: {} });
    await h.run('svc.entity/add-collection-items', {
      type: 'd/note',
      field: 'Files/Files',
      entity: { 'svc/id': note['svc/id'] },
      items: [{ 'svc/id': file['svc/id'] }],
    });
    const [row] = await h.run('svc.entity/query', {
      query: {
        'q/from': 'd/note',
        'q/select': [
          { 'Files/Files': { 'q/select': ['svc/secret', 'svc/content-length'], 'q/limit': 'q/no-limit' } },
        ],
        'q/where': ['=', ['svc/id'], '$id'],
      },
      params: { $id: note['svc/id'] },
    });
    // Clients select a file's size as `fibery/content-length`.
    expect(row['Files/Files']).toEqual([
      { 'svc/secret': file['svc/secret'], 'svc/content-length': bytes.length },
    ]);
  });

  it('files from a URL, with GET and the credentials header sent to the source', async () => {
    const res = await h.request('POST', '/api/files/from-url', {
      url: `${sourceUrl}/a/report.txt`,
      method: 'get',
      headers: { authorization: 'k' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ 'svc/name': 'report.txt', 'svc/content-type': 'text/plain' });
    expect(seen.at(-1)).toEqual({ method: 'GET', auth: 'k' });
    const named = await h.request('POST', '/api/files/from-url', {
      url: `${sourceUrl}/x`,
      name: 'given.txt',
    });
    expect(named.body['svc/name']).toBe('given.txt');
    const down = await fetch(`${h.url}/api/files/${named.body['svc/secret']}`, {
      headers: { authorization: `Token ${h.token}` },
    });
    expect(await down.text()).toBe('from the source');
  });

  it.each([
    ['POST', '/api/files/from-url', { url: 'ftp://x' }, 400],
    ['POST', '/api/files/from-url', { name: 'x' }, 400],
    ['POST', '/api/files/from-url', { url: 'http://127.0.0.1:1/x' }, 400],
    ['GET', `/api/files/${randomUUID()}`, undefined, 404],
    ['GET', '/api/files/nope', undefined, 404],
  ])('%s %s → %i', async (method, path, body, status) => {
    const res = await h.request(method, path, body);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ message: expect.any(String) });
  });

  it('a source answering 404 and a multipart body without a file part are 400', async () => {
    expect((await h.request('POST', '/api/files/from-url', { url: `${sourceUrl}/missing.txt` })).status).toBe(
      400,
    );
    const form = new FormData();
    form.append('other', 'x');
    const res = await fetch(`${h.url}/api/files`, {
      method: 'POST',
      headers: { authorization: `Token ${h.token}` },
      body: form,
    });
    expect(res.status).toBe(400);
  });
});
