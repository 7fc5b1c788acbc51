// Answers are written as strings (src/router/send-json.ts, src/paging/send-page.ts): their
// Content-Length must count UTF-8 bytes, not characters, or a client would cut a non-ASCII
// answer short.
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { auth, createServer, defineApp, field, silentLogger } from '../src/index.js';
import { descriptorBase } from './fixtures/minimal.js';

const name = 'Zoë’s board 🚀 «ß»';
const app = defineApp({
  id: 'bytes',
  name: 'Bytes',
  ...descriptorBase,
  authentication: [auth.none({ name })],
  sync: {
    types: {
      card: {
        name: 'Card',
        fields: { id: field.id(), name: field.text() },
        async *data() {
          yield [
            { id: '1', name },
            { id: '2', name: 'plain' },
          ];
        },
      },
    },
  },
});
const http = request(createServer(app, { logger: silentLogger, pageKeys: ['k'] }));

describe('answers with characters outside ASCII', () => {
  test('validate', async () => {
    const answer = await http.post('/validate').send({ id: 'none', fields: {} });
    expect(answer.body).toEqual({ name });
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.text));
  });

  test('a data page', async () => {
    const answer = await http.post('/api/v1/synchronizer/data').send({ requestedType: 'card' });
    expect(answer.body.items.map((item: { name: string }) => item.name)).toEqual([name, 'plain']);
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.text));
  });
});
