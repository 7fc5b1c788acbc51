import type { RouterOptions } from '../router/router-options.js';
import type { Server } from 'node:http';
import type { AppDefinition } from '../define/app.js';
import { silentLogger } from '../logging/logger.js';
import { PROTOCOL_PATHS } from '../protocol/paths.js';
import { createServer } from '../router/create-server.js';

/** An answer of the app under test. */
export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface SyncResult<T = Record<string, unknown>> {
  items: T[];
  pages: number;
  synchronizationType: string;
}

export interface SyncOptions {
  account?: Record<string, unknown>;
  filter?: Record<string, unknown>;
  lastSynchronizedAt?: string | null;
  types?: string[];
  /** Stop with an error past this many pages; default 10,000. */
  maxPages?: number;
}

/** A running app and a small client speaking the service's side of the protocol. */
export interface TestApp {
  url: string;
  /** Any request: `post('/api/v1/synchronizer/config', {})`. */
  request<T = any>(method: string, path: string, body?: unknown): Promise<TestResponse<T>>;
  post<T = any>(path: string, body?: unknown): Promise<TestResponse<T>>;
  descriptor(): Promise<TestResponse>;
  validate(id: string, fields: Record<string, unknown>): Promise<TestResponse>;
  config(account?: Record<string, unknown>): Promise<TestResponse>;
  schema(types: string[], options?: Pick<SyncOptions, 'account' | 'filter'>): Promise<TestResponse>;
  /** One data page, as the service asks for it. */
  data(requestedType: string, options?: SyncOptions & { pagination?: unknown }): Promise<TestResponse>;
  /** Every page of a type, following `nextPageConfig` to the end. Throws on an error answer. */
  sync<T = Record<string, unknown>>(requestedType: string, options?: SyncOptions): Promise<SyncResult<T>>;
  datalist(
    field: string,
    options?: { account?: Record<string, unknown>; dependsOn?: Record<string, unknown> },
  ): Promise<TestResponse>;
  execute(
    action: string,
    args: Record<string, unknown>,
    account?: Record<string, unknown>,
  ): Promise<TestResponse>;
  close(): Promise<void>;
}

/**
 * Starts an app on a free local port for a test, with logs silenced.
 * @example
 * const app = await testApp(myApp);
 * const { items } = await app.sync('issue', { account: { token: 't' } });
 * expect(items).toHaveLength(3);
 * await app.close();
 */
export async function testApp(
  definition: AppDefinition<any, any, any, any>,
  options: RouterOptions = {},
): Promise<TestApp> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer(definition, { ...options, logger: options.logger ?? silentLogger }).listen(
      0,
      '127.0.0.1',
      () => resolve(s),
    );
    s.once('error', reject);
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return connectTestApp(url, async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });
}

/** The same client for an app that is already running somewhere (any language). */
export function connectTestApp(url: string, close: () => Promise<void> = async () => {}): TestApp {
  const base = url.replace(/\/$/, '');
  const request = async <T>(method: string, path: string, body?: unknown): Promise<TestResponse<T>> => {
    const response = await fetch(base + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T };
  };
  const post = <T>(path: string, body: unknown = {}) => request<T>('POST', path, body);
  const dataBody = (requestedType: string, o: SyncOptions & { pagination?: unknown } = {}) => ({
    requestedType,
    types: o.types ?? [requestedType],
    account: o.account ?? {},
    filter: o.filter ?? {},
    pagination: o.pagination ?? null,
    lastSynchronizedAt: o.lastSynchronizedAt ?? null,
  });
  return {
    url: base,
    request,
    post,
    descriptor: () => request('GET', PROTOCOL_PATHS.descriptor),
    validate: (id, fields) => post(PROTOCOL_PATHS.validate, { id, fields }),
    config: (account = {}) => post(PROTOCOL_PATHS.config, { account }),
    schema: (types, o = {}) =>
      post(PROTOCOL_PATHS.schema, { types, account: o.account ?? {}, filter: o.filter ?? {} }),
    data: (requestedType, o) => post(PROTOCOL_PATHS.data, dataBody(requestedType, o)),
    async sync<T>(requestedType: string, o: SyncOptions = {}): Promise<SyncResult<T>> {
      const items: T[] = [];
      let pagination: unknown = null;
      let synchronizationType = '';
      for (let pages = 1; ; pages += 1) {
        if (pages > (o.maxPages ?? 10_000))
          throw new Error(`sync of "${requestedType}" did not end after ${pages - 1} pages`);
        const page = await post<any>(PROTOCOL_PATHS.data, dataBody(requestedType, { ...o, pagination }));
        if (page.status !== 200) {
          throw new Error(
            `data page ${pages} of "${requestedType}" answered ${page.status}: ${JSON.stringify(page.body)}`,
          );
        }
        items.push(...(page.body.items as T[]));
        synchronizationType = page.body.synchronizationType;
        if (!page.body.pagination.hasNext) return { items, pages, synchronizationType };
        pagination = page.body.pagination.nextPageConfig;
      }
    },
    datalist: (field, o = {}) =>
      post(PROTOCOL_PATHS.datalist, {
        field,
        types: [],
        account: o.account ?? {},
        dependsOn: o.dependsOn ?? {},
      }),
    execute: (action, args, account = {}) =>
      post(PROTOCOL_PATHS.execute, { action: { action, args }, account }),
    close,
  };
}
