// The data and validate bodies, and an app's filter, are taken as they are when a direct check
// finds them plainly valid (src/router/plain-body.ts), before their zod schemas. A direct check
// may only ever accept what the schema accepts, and only where the schema gives back the same
// values: for arbitrary JSON bodies near the protocol's shapes, every body it accepts must
// parse with the schema to an equal value.
import fc from 'fast-check';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { auth, createServer, defineApp, field, input, silentLogger } from '../src/index.js';
import { dataRequest, validateRequest } from '../src/protocol/index.js';
import { isPlainDataRequest, isPlainRecord, isPlainValidateRequest } from '../src/router/plain-body.js';
import { compileApp } from '../src/startup/compile-app.js';
import { checkFilter } from '../src/router/boundary.js';
import { descriptorBase, emptyType } from './fixtures/minimal.js';

/** A JSON value of the kinds a field may wrongly hold, or a record (with `__proto__` sometimes). */
const anyJson = fc.oneof(
  fc.constant(null),
  fc.constant(''),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.array(fc.oneof(fc.string(), fc.constant(''), fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(
    fc.oneof(fc.string({ maxLength: 5 }), fc.constant('__proto__')),
    fc.jsonValue({ maxDepth: 2 }),
    {
      maxKeys: 3,
    },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

const record = fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

/**
 * Bodies with some of the keys, each holding a value of about the right kind or any JSON value,
 * sent through JSON as the service sends them.
 */
const bodies = (likely: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .record(
      Object.fromEntries(Object.entries(likely).map(([key, value]) => [key, fc.oneof(value, anyJson)])),
      { requiredKeys: [] },
    )
    .chain((body) => {
      const text = JSON.stringify(body);
      // Sometimes with a top-level "__proto__" key, which JSON.parse makes an own property.
      const withProto = `{"__proto__":{"a":1}${text === '{}' ? '' : ','}${text.slice(1)}`;
      return fc.constantFrom(text, withProto);
    })
    .map((text) => JSON.parse(text) as Record<string, unknown>);

const dataBodies = bodies({
  requestedType: fc.string({ minLength: 1 }),
  types: fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
  filter: record,
  account: record,
  pagination: record,
  lastSynchronizedAt: fc.oneof(fc.string(), fc.integer(), fc.double()),
  operationId: fc.string(),
  schema: anyJson,
});

describe('direct checks of request bodies', () => {
  test('a data body taken directly parses with dataRequest to the same value', () => {
    let accepted = 0;
    fc.assert(
      fc.property(dataBodies, (body) => {
        if (!isPlainDataRequest(body)) return;
        accepted += 1;
        const parsed = dataRequest.safeParse(body);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(body);
      }),
      { numRuns: 3_000 },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  test('a validate body taken directly parses with validateRequest to the same value', () => {
    let accepted = 0;
    fc.assert(
      fc.property(bodies({ id: fc.string({ minLength: 1 }), fields: record, other: anyJson }), (body) => {
        if (!isPlainValidateRequest(body)) return;
        accepted += 1;
        const parsed = validateRequest.safeParse(body);
        expect(parsed.success).toBe(true);
        expect(parsed.data).toStrictEqual(body);
      }),
      { numRuns: 3_000 },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  test('a key named __proto__ is left to zod, which drops it', () => {
    const body = JSON.parse('{"requestedType":"issue","account":{"__proto__":{"x":1}}}');
    expect(isPlainRecord(body.account)).toBe(false);
    expect(isPlainDataRequest(body)).toBe(false);
    expect(isPlainDataRequest(JSON.parse('{"__proto__":{},"requestedType":"issue"}'))).toBe(false);
  });

  test('a filter of an app without filter fields is taken as zod would give it back', () => {
    const app = compileApp(
      defineApp({
        id: 'open',
        name: 'Open',
        ...descriptorBase,
        authentication: [auth.none()],
        sync: { types: { issue: emptyType } },
      }) as never,
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constant(null),
          fc.dictionary(fc.oneof(fc.string(), fc.constant('__proto__')), fc.jsonValue({ maxDepth: 2 })),
        ),
        (filter) => {
          const body = JSON.parse(JSON.stringify({ filter }));
          expect(checkFilter(app, body.filter)).toStrictEqual(app.filterSchema.parse(body.filter ?? {}));
        },
      ),
    );
  });
});

describe('answers are the same with or without the direct checks', () => {
  const app = defineApp({
    id: 'plain',
    name: 'Plain',
    ...descriptorBase,
    authentication: [
      auth.fields({ id: 'token', name: 'Token', fields: { token: input.password({ name: 'Token' }) } }),
    ],
    sync: {
      filters: { project: input.text({ name: 'Project', optional: true }) },
      types: {
        issue: {
          name: 'Issue',
          fields: { id: field.id(), name: field.text() },
          async *data(ctx) {
            yield { id: '1', name: `${ctx.requestedType} ${JSON.stringify(ctx.filter)}` };
          },
        },
      },
    },
  });
  const server = createServer(app, { logger: silentLogger, pageKeys: ['plain-body-key'] });

  test.each([
    [{ requestedType: 'issue', account: { token: 'a-long-token' }, filter: { project: 'x' } }, 200],
    [{ requestedType: 'issue', account: { token: 'a-long-token' }, filter: null, types: ['issue'] }, 200],
    [{ requestedType: '', account: { token: 'a-long-token' } }, 400],
    [{ requestedType: 'issue', types: [''], account: { token: 'a-long-token' } }, 400],
    [{ requestedType: 'issue', filter: [], account: { token: 'a-long-token' } }, 400],
    [{ requestedType: 'issue', lastSynchronizedAt: '', account: { token: 'a-long-token' } }, 400],
    [{ requestedType: 'issue', account: {} }, 401],
  ])('data %j answers %i', async (body, status) => {
    const answer = await request(server).post('/api/v1/synchronizer/data').send(body);
    expect(answer.status).toBe(status);
    if (status === 200) expect(answer.body.items).toHaveLength(1);
    else expect(answer.body.message).toEqual(expect.any(String));
  });

  test.each([
    [{ id: 'token', fields: { token: 'a-long-token' } }, 200],
    [{ id: 'token' }, 401],
    [{ id: '', fields: {} }, 400],
    [{ id: 'token', fields: [] }, 400],
  ])('validate %j answers %i', async (body, status) => {
    const answer = await request(server).post('/validate').send(body);
    expect(answer.status).toBe(status);
  });
});
