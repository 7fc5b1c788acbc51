// The router reads plain JSON bodies itself (src/router/json-body.ts) and leaves the rest to
// body-parser. Whatever path a request takes, its answer must be body-parser's: the same requests
// are sent over a socket to an app behind each parser and the answers compared.
import { type Server, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkJsonDepth } from '../src/index.js';
import { jsonBody } from '../src/router/json-body.js';

const LIMIT = 100;
const DEPTH = 4;

function serve(parser: RequestHandler): Promise<Server> {
  const app = express();
  app.use(parser);
  app.all('/echo', (req, res) => {
    res.json({ body: req.body === undefined ? '(undefined)' : req.body });
  });
  const errors: ErrorRequestHandler = (error, _req, res, _next) => {
    res.status(error.status ?? 500).json({ status: error.status, type: error.type, expose: error.expose });
  };
  app.use(errors);
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Sent in two chunks without a length (chunked transfer). */
  chunked?: boolean;
}

function send(server: Server, sent: Sent): Promise<{ status: number; body: unknown }> {
  const { port } = server.address() as AddressInfo;
  const body = sent.body === undefined ? undefined : Buffer.from(sent.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/echo',
        method: sent.method ?? 'POST',
        headers: {
          ...(body && !sent.chunked ? { 'content-length': String(body.length) } : {}),
          ...sent.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    if (body && sent.chunked) {
      req.write(body.subarray(0, 3));
      req.end(body.subarray(3));
    } else req.end(body);
  });
}

const json = { 'content-type': 'application/json' };
const cases: Array<[string, Sent]> = [
  ['an object', { headers: json, body: '{"a":1,"b":[true,null]}' }],
  ['an array after whitespace', { headers: json, body: ' \n\t[1,2]' }],
  ['no content type', { body: '{"a":1}' }],
  ['an unknown content type', { headers: { 'content-type': 'text/plain' }, body: '{"a":1}' }],
  [
    'a byte order mark',
    { headers: json, body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]) },
  ],
  ['non-ASCII text', { headers: json, body: '{"s":"é 😀 \\u00e9"}' }],
  ['an empty body', { headers: json, body: '' }],
  ['whitespace alone', { headers: json, body: '   ' }],
  ['a number', { headers: json, body: '42' }],
  ['a string', { headers: json, body: '"x"' }],
  ['malformed JSON', { headers: json, body: '{"a":' }],
  ['nested too deep', { headers: json, body: '[[[[[1]]]]]' }],
  ['brackets inside a string', { headers: json, body: '{"s":"[[[[[[[[","t":"\\"[[[["}' }],
  ['over the limit', { headers: json, body: `{"s":"${'x'.repeat(LIMIT)}"}` }],
  ['a UTF-8 charset', { headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"a":1}' }],
  ['an unsupported charset', { headers: { 'content-type': 'application/json; charset=latin1' }, body: '{}' }],
  ['gzip', { headers: { ...json, 'content-encoding': 'gzip' }, body: gzipSync('{"a":1}') }],
  ['identity encoding', { headers: { ...json, 'content-encoding': 'Identity' }, body: '{"a":1}' }],
  ['an unknown encoding', { headers: { ...json, 'content-encoding': 'zip' }, body: '{"a":1}' }],
  ['chunked transfer', { headers: json, body: '{"a":[1,2,3]}', chunked: true }],
  ['chunked and too deep', { headers: json, body: '[[[[[[]]]]]]', chunked: true }],
  ['a GET without a body', { method: 'GET' }],
  ['a DELETE with a body', { method: 'DELETE', headers: json, body: '{"a":1}' }],
];

// JSON-only (body-parser's default type): what a label decides, on top of the cases above.
const labelled: Array<[string, Sent]> = [
  ...cases,
  ['an upper-case JSON label', { headers: { 'content-type': 'Application/JSON' }, body: '{"a":1}' }],
  ['a +json label', { headers: { 'content-type': 'application/vnd.api+json' }, body: '{"a":1}' }],
  ['a form label', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' }],
  ['no label and malformed', { body: '{"a":' }],
  ['a text label, too deep', { headers: { 'content-type': 'text/plain' }, body: '[[[[[[1]]]]]]' }],
];

let ours: Server;
let theirs: Server;
let oursJsonOnly: Server;
let theirsJsonOnly: Server;
beforeAll(async () => {
  const verify = (_req: unknown, _res: unknown, buffer: Buffer) => checkJsonDepth(buffer, DEPTH);
  ours = await serve(jsonBody({ limit: LIMIT, maxDepth: DEPTH }));
  theirs = await serve(express.json({ limit: LIMIT, type: () => true, verify }));
  oursJsonOnly = await serve(jsonBody({ limit: LIMIT, maxDepth: DEPTH, jsonOnly: true }));
  theirsJsonOnly = await serve(express.json({ limit: LIMIT, verify }));
});
afterAll(() => {
  for (const server of [ours, theirs, oursJsonOnly, theirsJsonOnly]) server.close();
});

describe('the JSON-only body reader answers as body-parser with its default type does', () => {
  test.each(labelled)('%s', async (_name, sent) => {
    const [a, b] = [await send(oursJsonOnly, sent), await send(theirsJsonOnly, sent)];
    expect(a).toEqual(b);
  });
});

describe('the JSON body reader answers as body-parser does', () => {
  test.each(cases)('%s', async (_name, sent) => {
    const [a, b] = [await send(ours, sent), await send(theirs, sent)];
    expect(a).toEqual(b);
  });

  test('a limit given as text is read as bytes', async () => {
    const server = await serve(jsonBody({ limit: '1kb', maxDepth: DEPTH }));
    try {
      const fits = await send(server, { headers: json, body: `{"s":"${'x'.repeat(1000)}"}` });
      const over = await send(server, { headers: json, body: `{"s":"${'x'.repeat(1020)}"}` });
      expect([fits.status, over.status]).toEqual([200, 413]);
    } finally {
      server.close();
    }
  });

  test('a limit that is not a size is refused at start-up', () => {
    expect(() => jsonBody({ limit: 'lots', maxDepth: DEPTH })).toThrow(/Invalid body limit/);
  });
});
