import { describe, expect, test } from 'vitest';
import { descriptorBase, emptyType } from './fixtures/minimal.js';
import {
  AppDefinitionError,
  auth,
  createRouter,
  createServer,
  defineApp,
  field,
  input,
  silentLogger,
} from '../src/index.js';

describe('start-up validation', () => {
  test('a definition with several mistakes reports all of them by path', () => {
    const broken = {
      id: '',
      name: 'Broken',
      ...descriptorBase,
      authentication: [
        auth.none(),
        auth.fields({ id: 'none', name: 'Again', fields: { key: input.text({ name: 'Key' }) } }),
      ],
      sync: {
        filters: {
          state: input.list({ name: 'State', datalist: true }),
          sub: input.list({ name: 'Sub', datalist: true, dependsOn: ['ghost'] }),
          query: { type: 'highlightText', name: 'Query', optional: true },
        },
        datalists: { sub: async () => [], orphan: async () => [] },
        types: {
          issue: {
            name: 'Issue',
            fields: {
              id: field.id(),
              repo: field.relation({ to: 'repository', cardinality: 'many-to-one', targetName: 'Issues' }),
              user: field.relation({
                to: 'user',
                cardinality: 'many-to-one',
                targetName: 'Issues',
                targetFieldId: 'login',
              }),
            },
            pageSize: 0,
            data: async function* () {},
          },
          user: {
            name: 'User',
            fields: {
              id: field.id(),
              name: field.text(),
              issues: field.relation({
                to: 'issue',
                cardinality: 'many-to-one',
                targetName: 'User',
                name: 'Issues',
              }),
            },
            data: 'not a function',
          },
        },
      },
    };
    let error: unknown;
    try {
      createRouter(broken as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppDefinitionError);
    const problems = (error as AppDefinitionError).problems.map((p) => `${p.path}: ${p.message}`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'id: must be a non-empty string',
        'sync.types.issue.pageSize: Too small: expected number to be >=1',
        'sync.types.user.data: must be a function',
        'authentication[1].id: "none" is also the id of authentication[0]',
        'authentication[1].id: "none" is reserved; use auth.none(), auth.oauth1() or auth.oauth2()',
        'sync.filters.state: is a datalist filter but sync.datalists.state has no handler',
        'sync.filters.sub.dependsOn: "ghost" is not a filter of this app',
        'sync.filters.query: a highlightText field needs `editorMode` (json or sql)',
        'sync.datalists.orphan: has no matching filter with `datalist: true`',
        'sync.types.issue.fields: every type needs a `name` field',
        'sync.types.issue.fields.repo.relation: targets type "repository", which is not defined',
        'sync.types.issue.fields.user.relation: targetFieldId "login" is not a field of type "user"',
        'sync.types.user.fields.issues.relation: declares again the relation of sync.types.issue.fields.user.relation; declare a relation on one side only',
      ]),
    );
    expect((error as Error).message).toMatch(/^The app definition has \d+ problems:\n {2}- /);
  });

  test('two OAuth 2 authentications are refused', () => {
    const twice = {
      id: 'x',
      name: 'X',
      ...descriptorBase,
      authentication: [
        auth.oauth2({ authorizeUrl: 'https://p/auth', tokenUrl: 'https://p/token' }),
        auth.oauth2({ authorizeUrl: 'https://q/auth', tokenUrl: 'https://q/token' }),
      ],
      actions: { a: { name: 'A', args: {}, run: async () => {} } },
    };
    expect(() => createRouter(twice as never)).toThrow(/at most one OAuth 2 authentication is supported/);
  });

  test('an app with neither sync nor actions is refused, and a missing logo file is named', () => {
    expect(() =>
      createRouter({
        id: 'x',
        name: 'X',
        ...descriptorBase,
        authentication: [auth.none()],
      } as never),
    ).toThrow(/defines neither `sync` nor `actions`/);
    expect(() =>
      createRouter({
        id: 'x',
        name: 'X',
        ...descriptorBase,
        logo: { file: '/nonexistent/logo.svg' },
        authentication: [auth.none()],
        actions: { a: { name: 'A', args: {}, run: async () => {} } },
      } as never),
    ).toThrow('logo.file: cannot read "/nonexistent/logo.svg" (ENOENT)');
  });
});

describe('createServer', () => {
  test('adds the protocol routes to the application router itself, not inside a nested router', () => {
    const server = createServer(
      defineApp({
        id: 'flat',
        name: 'Flat',
        ...descriptorBase,
        authentication: [auth.none()],
        sync: { types: { t: emptyType } },
      }),
      { logger: silentLogger, pageKeys: ['k'] },
    );
    // A nested router would be one layer named "router" holding the routes; each request then
    // went through Express's dispatch twice. The protocol's routes are one layer of the
    // application's router (src/router/route-table.ts).
    const names = (server.router.stack as Array<{ name: string }>).map((layer) => layer.name);
    expect(names).not.toContain('router');
    expect(names).toContain('protocolRoutes');
  });
});
