// Hostile answers cost bounded memory and time: a body past the call's limit is dropped while it
// streams in (declared or not), an oversized schema is refused before it is read further, and
// neither is tried again. A bare local server plays the hostile app.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppCallError, AppClient, MAX_FIELDS_PER_TYPE, MAX_SCHEMA_TYPES, readPage } from '../src/index.js';

let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
let hits = 0;
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      answer(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A JSON answer of about `bytes` bytes, sent in 64 KiB writes with or without its length. */
function bigJson(bytes: number, declared: boolean) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    const filler = 'x'.repeat(64 * 1024);
    const parts = Math.ceil(bytes / filler.length);
    const body = `{"name":"${filler.repeat(parts)}"}`;
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(declared ? { 'content-length': String(Buffer.byteLength(body)) } : {}),
    });
    if (declared) return res.end(body);
    let i = 0;
    const next = () => {
      while (i < parts) {
        i++;
        if (!res.write(i === 1 ? `{"name":"${filler}` : filler)) return void res.once('drain', next);
      }
      res.end('"}');
    };
    next();
  };
}

describe('app answers are read up to a limit per call', () => {
  it.each([true, false])(
    'a validate answer past the limit fails, not retryable (length declared: %s)',
    async (declared) => {
      answer = bigJson(3 * 1024 * 1024, declared);
      const client = new AppClient(url, { maxAnswerBytes: 1024 * 1024 });
      const error = await client.validate('token', { token: 'k' }).catch((e) => e);
      expect(error).toBeInstanceOf(AppCallError);
      expect(error.message).toBe('POST /validate: the answer is larger than 1048576 bytes');
      expect(error.retryable).toBe(false);
    },
  );

  it('a data page has a limit of its own, and a page past it is not asked again', async () => {
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          items: Array.from({ length: 2000 }, (_, i) => ({ id: String(i), name: 'n'.repeat(50) })),
        }),
      );
    };
    const client = new AppClient(url, { maxAnswerBytes: 1000, maxDataAnswerBytes: 1024 * 1024 });
    const body = {
      requestedType: 't',
      types: ['t'],
      filter: {},
      account: {},
      pagination: null,
      lastSynchronizedAt: null,
    };
    const ok = await readPage(client, body);
    expect(ok.kind).toBe('page');
    const small = new AppClient(url, { maxDataAnswerBytes: 10_000 });
    hits = 0;
    const refused = await readPage(small, body, { retry: { attempts: 6, baseDelayMs: 1 } });
    expect(refused.kind).toBe('error');
    expect(refused.kind === 'error' && refused.error.message).toMatch(/larger than 10000 bytes/);
    expect(hits).toBe(1);
  });
});

describe('schema answers are bounded', () => {
  const schemaOf = (types: number, fields: number) =>
    Object.fromEntries(
      Array.from({ length: types }, (_, t) => [
        `t${t}`,
        Object.fromEntries(
          Array.from({ length: fields }, (_, f) => [
            f === 0 ? 'id' : `f${f}`,
            { type: f === 0 ? 'id' : 'text', name: `F${f}` },
          ]),
        ),
      ]),
    );

  it.each([
    [1, MAX_FIELDS_PER_TYPE + 1, `more than ${MAX_FIELDS_PER_TYPE} fields`],
    [MAX_SCHEMA_TYPES + 1, 2, `more than ${MAX_SCHEMA_TYPES} types`],
  ])('%i types of %i fields are refused for good', async (types, fields, message) => {
    const body = JSON.stringify(schemaOf(types, fields));
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    const error = await new AppClient(url).schema(['t0'], {}, {}).catch((e) => e);
    expect(error).toBeInstanceOf(AppCallError);
    expect(error.message).toContain(message);
    expect(error.retryable).toBe(false);
  });

  it('a schema within the limits is read', async () => {
    const body = JSON.stringify(schemaOf(2, 20));
    answer = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    const schema = await new AppClient(url).schema(['t0', 't1'], {}, {});
    expect(Object.keys(schema.t1!)).toHaveLength(20);
  });
});

describe("an error answer's message", () => {
  const refuse = (body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  it('is its message, or else a string error (as the service docs show /validate refusing one)', async () => {
    const client = new AppClient(url);
    for (const [body, said] of [
      [{ message: 'Bad key' }, 'POST /validate: Bad key'],
      [{ error: 'Your password is incorrect!' }, 'POST /validate: Your password is incorrect!'],
      [{ message: 'Bad key', error: 'ignored' }, 'POST /validate: Bad key'],
      [{ error: { code: 1 } }, 'POST /validate: HTTP 401'],
    ] as const) {
      answer = refuse(body);
      const error = await client.validate('token', { token: 'k' }).catch((e) => e);
      expect(error).toBeInstanceOf(AppCallError);
      expect(error.message).toBe(said);
    }
  });
});
