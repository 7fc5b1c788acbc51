import { type Server, createServer as createHttpServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { inject } from 'light-my-request';
import type { AppDefinition } from '../define/app.js';
import type { Logger } from '../logging/logger.js';
import { silentLogger } from '../logging/logger.js';
import { PROTOCOL_PATHS } from '../protocol/paths.js';
import { createServer } from '../router/create-server.js';
import { hardenServer } from '../router/harden-server.js';
import type { RouterOptions } from '../router/router-options.js';

/** Options of {@link fuzzApp}. */
export interface FuzzOptions {
  /** Requests driven in process (no sockets); default 2,000. */
  runs?: number;
  /** Requests sent over a real local socket as well; default 1% of `runs`, at least 20. */
  socketRuns?: number;
  /** fast-check seed; default random (printed in the failure so it can be replayed). */
  seed?: number;
  /**
   * Valid accounts of the app, mixed into well-formed requests so the fuzzer reaches the
   * handlers. Point any URL in them at a local server: fuzzing must never call the internet.
   */
  accounts?: Record<string, unknown>[];
  /** Longest wait for one answer before the case counts as a hang; default 10,000 ms. */
  timeoutMs?: number;
  /** Where the app's own log lines go; default nowhere. */
  logger?: Logger;
  /** Router options for the app under test (page keys, limits). */
  router?: RouterOptions;
}

/** What a fuzz run did. */
export interface FuzzReport {
  seed: number;
  cases: number;
  socketCases: number;
  /** Answers per status. */
  statuses: Record<number, number>;
}

/** One generated request. */
export interface FuzzCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'TRACE'];

/** The names a definition uses, so generated requests name real types, actions and fields. */
function vocabulary(definition: AppDefinition) {
  const sync = definition.sync;
  return {
    types: Object.keys(sync?.types ?? {}),
    actions: Object.keys(definition.actions ?? {}),
    datalists: Object.keys(sync?.datalists ?? {}),
    filters: Object.keys(sync?.filters ?? {}),
    auths: definition.authentication.map((a) => a.id),
    args: Object.values(definition.actions ?? {}).flatMap((a) => Object.keys(a.args)),
  };
}

/** Any JSON, with hostile shapes weighted in: prototype keys, huge strings, deep nesting. */
function hostileValue(words: string[]): fc.Arbitrary<unknown> {
  const word = fc.constantFrom(...words, ...PROTO_KEYS, '', ' ');
  const scalar = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'grapheme', maxLength: 10 }),
    word,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('\ud800', 'a\udfffb', '\u0000', '%00', '../../etc/passwd', '<script>'),
  );
  const nested = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(fc.oneof(word, fc.string({ maxLength: 8 })), tie('value'), { maxKeys: 4 }),
    ),
  })).value;
  return fc.oneof(
    { arbitrary: nested, weight: 12 },
    { arbitrary: fc.constantFrom(65, 300).map((d) => deep(d)), weight: 1 },
    {
      // Mostly below the body limit (they reach the handlers), sometimes above it (413).
      arbitrary: fc
        .oneof(
          { arbitrary: fc.constant(2_000), weight: 6 },
          { arbitrary: fc.constant(40_000), weight: 2 },
          { arbitrary: fc.constant(300_000), weight: 1 },
        )
        .map((n) => 'x'.repeat(n)),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(...PROTO_KEYS)
        .map((k) => JSON.parse(`{"${k}":{"polluted":true}}`) as unknown),
      weight: 1,
    },
  );
}

function deep(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i += 1) value = i % 2 ? [value] : { a: value };
  return value;
}

/** A protocol body for a path, built from the app's vocabulary with any part made hostile. */
function bodyFor(path: string, definition: AppDefinition, accounts: Record<string, unknown>[]) {
  const v = vocabulary(definition);
  const hostile = hostileValue([
    ...v.types,
    ...v.actions,
    ...v.datalists,
    ...v.filters,
    ...v.auths,
    ...v.args,
  ]);
  const pick = (names: string[]) => (names.length ? fc.oneof(fc.constantFrom(...names), hostile) : hostile);
  const account = accounts.length
    ? fc.oneof({ arbitrary: fc.constantFrom(...accounts), weight: 3 }, { arbitrary: hostile, weight: 1 })
    : hostile;
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, hostile, fc.constant(undefined));
  const filter = maybe(fc.dictionary(fc.constantFrom(...v.filters, ...PROTO_KEYS), hostile, { maxKeys: 3 }));
  const types = maybe(fc.array(pick(v.types), { maxLength: 3 }));
  const forgedPagination = fc.oneof(
    fc.constant(null),
    hostile,
    fc.record({
      weft: fc.constantFrom(1, 2),
      type: pick(v.types),
      state: fc.oneof(fc.base64String({ maxLength: 40 }), hostile),
      sig: fc.oneof(fc.base64String({ maxLength: 44 }), hostile),
      cursor: hostile,
      skip: fc.oneof(fc.integer(), hostile),
    }),
  );
  switch (path) {
    case PROTOCOL_PATHS.validate:
      return fc.record({ id: pick(v.auths), fields: account });
    case PROTOCOL_PATHS.config:
    case PROTOCOL_PATHS.schema:
      return fc.record({ account, types, filter });
    case PROTOCOL_PATHS.data:
      return fc.record({
        requestedType: pick(v.types),
        types,
        account,
        filter,
        pagination: forgedPagination,
        lastSynchronizedAt: maybe(
          fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            fc.string(),
          ),
        ),
        operationId: maybe(fc.string({ maxLength: 12 })),
      });
    case PROTOCOL_PATHS.datalist:
      return fc.record({ field: pick(v.datalists), account, types, dependsOn: maybe(hostile) });
    case PROTOCOL_PATHS.execute:
      return fc.record({
        action: fc.oneof(
          fc.record({
            action: pick(v.actions),
            args: fc.dictionary(
              fc.oneof(fc.constantFrom(...v.args, ...PROTO_KEYS), fc.string({ maxLength: 8 })),
              hostile,
              {
                maxKeys: 4,
              },
            ),
          }),
          hostile,
        ),
        account,
      });
    case PROTOCOL_PATHS.oauth2Authorize:
    case PROTOCOL_PATHS.oauth1Authorize:
      return fc.record({
        callback_uri: fc.oneof(fc.constant('https://service.example/cb'), hostile),
        state: maybe(hostile),
      });
    case PROTOCOL_PATHS.oauth2AccessToken:
      return fc.record({
        code: fc.oneof(fc.string({ maxLength: 12 }), hostile),
        state: maybe(hostile),
        fields: fc.oneof(
          fc.record({ callback_uri: fc.oneof(fc.constant('https://service.example/cb'), hostile) }),
          hostile,
        ),
      });
    case PROTOCOL_PATHS.oauth1AccessToken:
      return fc.record({
        oauth_verifier: fc.oneof(fc.string({ maxLength: 12 }), hostile),
        fields: fc.oneof(
          fc.record({
            access_token: fc.string({ maxLength: 12 }),
            access_secret: fc.string({ maxLength: 12 }),
          }),
          hostile,
        ),
      });
    default:
      return fc.record({
        account,
        filter,
        types,
        params: maybe(hostile),
        payload: maybe(hostile),
        webhook: maybe(hostile),
      });
  }
}

const PATHS = Object.values(PROTOCOL_PATHS);

/** Generated requests: protocol paths (and near misses) with well-formed, hostile or broken bodies. */
export function fuzzCases(
  definition: AppDefinition<any, any, any, any>,
  accounts: Record<string, unknown>[] = [],
): fc.Arbitrary<FuzzCase> {
  const def = definition as AppDefinition;
  const path = fc.oneof(
    { arbitrary: fc.constantFrom(...PATHS), weight: 12 },
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom(...PATHS),
          fc.constantFrom('/', '//', '/..', '%2e', '?x=1', '#', '%00', '/%ZZ'),
        )
        .map(([p, s]) => p + s),
      weight: 1,
    },
    { arbitrary: fc.constantFrom(...PATHS).map((p) => p.toUpperCase()), weight: 1 },
    { arbitrary: fc.webPath(), weight: 1 },
    { arbitrary: fc.integer({ min: 2_000, max: 12_000 }).map((n) => `/${'a'.repeat(n)}`), weight: 1 },
  );
  const method = fc.oneof(
    { arbitrary: fc.constant('POST'), weight: 6 },
    { arbitrary: fc.constantFrom(...METHODS), weight: 2 },
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    '',
  );
  // No shrinking: a failing request is reported as generated, with the seed to replay it.
  return fc.noShrink(
    fc.tuple(path, method, contentType).chain(([p, m, ct]) => {
      const base = p.split(/[?#]/)[0]!;
      const body = fc.oneof(
        { arbitrary: bodyFor(base, def, accounts).map((b) => JSON.stringify(b)), weight: 8 },
        { arbitrary: hostileValue([]).map((b) => JSON.stringify(b) ?? 'null'), weight: 2 },
        { arbitrary: fc.string({ maxLength: 50 }), weight: 1 },
        // Nesting too deep to build as a value: written as text.
        {
          arbitrary: fc
            .constantFrom(100, 1_000, 100_000)
            .map((n) => `{"account":${'['.repeat(n)}${']'.repeat(n)},"requestedType":"x"}`),
          weight: 1,
        },
        {
          arbitrary: bodyFor(base, def, accounts).map((b) => {
            const text = JSON.stringify(b);
            return text.slice(0, Math.max(1, Math.floor(text.length / 2)));
          }),
          weight: 1,
        },
        { arbitrary: fc.constant(undefined), weight: 1 },
      );
      return body.map(
        (b): FuzzCase => ({
          method: m,
          path: p,
          headers: ct ? { 'content-type': ct } : {},
          body: m === 'GET' || m === 'HEAD' ? undefined : b,
        }),
      );
    }),
  );
}

/** An answer, as the fuzzer judges it. */
interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** Why an answer breaks the rules, or undefined: JSON everywhere, no 5xx from input alone. */
export function judge(c: FuzzCase, answer: Answer): string | undefined {
  const base = c.path.split(/[?#]/)[0];
  if (answer.status === 204 || c.method === 'HEAD') return undefined;
  if (answer.status === 200 && (base === PROTOCOL_PATHS.logo || base === PROTOCOL_PATHS.resource))
    return undefined;
  if (!answer.contentType.includes('application/json'))
    return `answered ${answer.status} ${answer.contentType || 'without a type'}, not JSON`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return `answered ${answer.status} with a body that is not JSON`;
  }
  const message = (parsed as { message?: unknown } | null)?.message;
  if (answer.status >= 400 && typeof message !== 'string')
    return `error ${answer.status} without a JSON {message}`;
  // Temporary trouble the app reports (an upstream that cannot be reached) is not a bug.
  const tryLater = (parsed as { tryLater?: unknown }).tryLater === true;
  if (answer.status >= 500 && !(tryLater && [429, 503, 504].includes(answer.status)))
    return `answered ${answer.status}: ${String(message).slice(0, 200)}`;
  return undefined;
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms to ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Over a real socket with node:http, which sends any method and any path as given. */
function overSocket(url: string, c: FuzzCase): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url + (c.path.startsWith('/') ? c.path : `/${c.path}`),
      // A fresh connection each time: a hostile request may rightly end its connection.
      { method: c.method, headers: c.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(c.body);
  });
}

const describe = (c: FuzzCase) =>
  `${c.method} ${c.path.slice(0, 120)} ${JSON.stringify(c.headers)} body ${c.body === undefined ? '(none)' : `${c.body.slice(0, 300)}${c.body.length > 300 ? `... (${c.body.length} chars)` : ''}`}`;

/**
 * Property-based attack test of an app: `runs` generated requests to every protocol endpoint
 * (and to near-miss paths, with odd methods, wrong content types, malformed, deeply nested,
 * huge and prototype-polluting bodies, forged pagination), in process, plus `socketRuns` over a
 * real socket. Every answer must be JSON (`{message}` for errors), no input may cause a 5xx
 * (an app's `tryLater` 503/504 excepted), nothing may hang, and the process must not see an
 * uncaught error. Throws with the seed and the failing request otherwise.
 *
 * @example
 * await fuzzApp(myApp, { runs: 5_000, seed: 42, accounts: [{ token: 'local-test-token' }] });
 */
export async function fuzzApp(
  definition: AppDefinition<any, any, any, any>,
  options: FuzzOptions = {},
): Promise<FuzzReport> {
  const runs = options.runs ?? 2_000;
  const socketRuns = options.socketRuns ?? Math.max(20, Math.floor(runs / 100));
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const build = () =>
    createServer(definition, {
      pageKeys: ['fuzz-page-key'],
      ...options.router,
      logger: options.logger ?? silentLogger,
    });
  // light-my-request adapts Express's shared request/response prototypes for injection, which
  // breaks real sockets: the socket cases run first, and the prototypes are put back after.
  const app = build();
  const socketApp = build();
  const expressRequest = Object.getPrototypeOf(app.request) as object;
  const expressResponse = Object.getPrototypeOf(app.response) as object;
  const originalRequest = Object.getPrototypeOf(expressRequest) as object;
  const originalResponse = Object.getPrototypeOf(expressResponse) as object;
  const statuses: Record<number, number> = {};
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => crashes.push(error);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  const server = await new Promise<Server>((resolve) => {
    const s = hardenServer(createHttpServer(socketApp)).listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const cases = fuzzCases(definition, options.accounts ?? []);
  let sent = 0;
  try {
    const run = async (c: FuzzCase, socket: boolean) => {
      const answer = socket
        ? await withTimeout(overSocket(url, c), timeoutMs, describe(c)).catch((error: Error) => {
            throw new Error(`${error.message}\n  request: ${describe(c)}`);
          })
        : await withTimeout(
            inject(app as never, {
              method: c.method as 'GET',
              url: c.path.startsWith('/') ? c.path : `/${c.path}`,
              headers: c.headers,
              ...(c.body === undefined ? {} : { payload: c.body }),
            }).then((r) => ({
              status: r.statusCode,
              contentType: String(r.headers['content-type'] ?? ''),
              body: r.body,
            })),
            timeoutMs,
            describe(c),
          );
      sent += 1;
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      const problem =
        judge(c, answer) ?? (crashes.length > 0 ? `uncaught error: ${String(crashes[0])}` : undefined);
      if (problem) throw new Error(`${problem}\n  request: ${describe(c)}`);
    };
    for (const [count, socket] of [
      [socketRuns, true],
      [runs, false],
    ] as const) {
      if (count === 0) continue;
      const result = await fc.check(
        fc.asyncProperty(cases, (c) => run(c, socket)),
        { numRuns: count, seed, endOnFailure: true },
      );
      if (result.failed) {
        const error =
          result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        throw new Error(
          `fuzz ${definition.id}: case ${result.numRuns} of ${count} (${socket ? 'socket' : 'in process'}) failed; replay with seed ${seed}\n${error}`,
        );
      }
    }
  } finally {
    Object.setPrototypeOf(expressRequest, originalRequest);
    Object.setPrototypeOf(expressResponse, originalResponse);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
  return { seed, cases: sent - socketRuns, socketCases: socketRuns, statuses };
}
