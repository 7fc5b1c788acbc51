import { describe, expectTypeOf, test } from 'vitest';
import { arg } from './actions.js';
import { defineApp } from './app.js';
import { fieldAuth as auth } from './auth.js';
import { type DateRangeValue, input } from './inputs.js';
import { remove, resume } from './markers.js';
import { field } from './schema-fields.js';

describe('defineApp infers handler types from the definition', () => {
  test('account, filter and items are typed without casts', () => {
    defineApp({
      id: 'typed',
      name: 'Typed',
      version: '1',
      description: 'd',
      website: 'https://example.com',
      authentication: [
        auth.fields({
          id: 'token',
          name: 'Token',
          fields: {
            token: input.password({ name: 'Token' }),
            host: input.text({ name: 'Host', optional: true }),
            help: input.link({ name: 'Help', url: 'https://example.com' }),
          },
        }),
      ],
      sync: {
        filters: {
          state: input.list({ name: 'State', datalist: true }),
          labels: input.multidropdown({ name: 'Labels', optional: true }),
          updated: input.date({ name: 'Updated', optional: true }),
          limit: input.number({ name: 'Limit' }),
        },
        datalists: {
          state: async ({ account, dependsOn }) => {
            expectTypeOf(account.token).toEqualTypeOf<string>();
            expectTypeOf(dependsOn.limit).toEqualTypeOf<number | undefined>();
            return [{ title: 'Open', value: 'open' }];
          },
        },
        types: {
          issue: {
            name: 'Issue',
            fields: {
              id: field.id(),
              name: field.text(),
              points: field.integer(),
              repo: field.relation({ to: 'repo', cardinality: 'many-to-one', targetName: 'Issues' }),
              labels: field.relation({ to: 'repo', cardinality: 'many-to-many', targetName: 'Labelled' }),
            },
            delta: true,
            async *data({ account, filter, cursor, since }) {
              expectTypeOf(account).toEqualTypeOf<{ token: string } & { host?: string }>();
              expectTypeOf(account).not.toHaveProperty('help');
              expectTypeOf(filter.state).toEqualTypeOf<string>();
              expectTypeOf(filter.labels).toEqualTypeOf<string[] | undefined>();
              expectTypeOf(filter.updated).toEqualTypeOf<DateRangeValue | undefined>();
              expectTypeOf(filter.limit).toEqualTypeOf<number>();
              expectTypeOf(since).toEqualTypeOf<Date | null>();
              void cursor;
              yield { id: 1, name: 'x', points: 3, repo: 'r1', labels: ['a', 'b'] };
              yield resume({ page: 2 });
              yield remove('gone');
            },
          },
          repo: {
            name: 'Repo',
            fields: { id: field.id(), name: field.text() },
            async *data() {
              yield { id: 'r1', name: 'weft' };
            },
          },
        },
      },
      actions: {
        comment: {
          name: 'Comment',
          args: {
            text: arg.textarea({ name: 'Text', template: true }),
            tag: arg.text({ name: 'Tag', optional: true }),
          },
          async run({ args, account }) {
            expectTypeOf(args.text).toEqualTypeOf<string>();
            expectTypeOf(args.tag).toEqualTypeOf<string | undefined>();
            expectTypeOf(account.token).toEqualTypeOf<string>();
          },
        },
      },
    });
  });

  test('an item that does not match its fields is a type error', () => {
    defineApp({
      id: 'wrong',
      name: 'Wrong',
      version: '1',
      description: 'd',
      website: 'https://example.com',
      authentication: [auth.none()],
      sync: {
        types: {
          issue: {
            name: 'Issue',
            fields: { id: field.id(), name: field.text(), points: field.number() },
            // @ts-expect-error points must be a number
            async *data() {
              yield { id: 1, name: 'x', points: 'three' };
            },
          },
        },
      },
    });
  });

  test('a public app has an empty account', () => {
    defineApp({
      id: 'public',
      name: 'Public',
      version: '1',
      description: 'd',
      website: 'https://example.com',
      authentication: [auth.none()],
      actions: {
        ping: {
          name: 'Ping',
          args: {},
          run({ account }) {
            expectTypeOf(account).toEqualTypeOf<Record<never, never>>();
          },
        },
      },
    });
  });
});

describe('batches', () => {
  test('a data handler may yield arrays of items and markers, still type-checked', () => {
    defineApp({
      id: 'batch',
      name: 'Batch',
      version: '1',
      description: 'd',
      website: 'https://example.com',
      authentication: [auth.none()],
      sync: {
        types: {
          ok: {
            name: 'Ok',
            fields: { id: field.id(), name: field.text(), n: field.number() },
            async *data() {
              yield [{ id: 1, name: 'a', n: 1 }, resume(1), { id: 2, n: 2 }];
            },
          },
          wrong: {
            name: 'Wrong',
            fields: { id: field.id(), name: field.text(), n: field.number() },
            // @ts-expect-error n must be a number, in a batch too
            async *data() {
              yield [{ id: 1, n: 'one' }];
            },
          },
        },
      },
    });
  });
});

describe('account-dependent types and filters', () => {
  test('accountTypes and accountFilters receive the typed account and filter', () => {
    defineApp({
      id: 'db',
      name: 'Db',
      version: '1',
      description: 'd',
      website: 'https://example.com',
      authentication: [
        auth.fields({ id: 'db', name: 'Db', fields: { connection: input.password({ name: 'Connection' }) } }),
      ],
      sync: {
        filters: { limit: input.number({ name: 'Limit', optional: true }) },
        accountFilters: ({ account }) => {
          expectTypeOf(account.connection).toEqualTypeOf<string>();
          return { schemaName: input.text({ name: 'Schema' }) };
        },
        types: {},
        accountTypes: async ({ account, filter }) => {
          expectTypeOf(account.connection).toEqualTypeOf<string>();
          expectTypeOf(filter.limit).toEqualTypeOf<number | undefined>();
          // Filters of the account are not known statically.
          expectTypeOf(filter.schemaName).toEqualTypeOf<unknown>();
          return {
            orders: {
              name: 'Orders',
              fields: { id: field.id(), name: field.text() },
              async *data(ctx) {
                expectTypeOf(ctx.account.connection).toEqualTypeOf<string>();
                yield { id: 1, name: 'o', anything: true };
              },
            },
          };
        },
      },
    });
  });

  test('filter default values are typed by the input', () => {
    input.number({ name: 'Limit', defaultValue: 10 });
    input.multidropdown({ name: 'Tags', defaultValue: ['a'] });
    // @ts-expect-error a number filter's default is a number
    input.number({ name: 'Limit', defaultValue: 'ten' });
  });
});

describe('values of the real service’s field kinds', () => {
  test('ranges, locations, avatars and user relations take their natural values', () => {
    defineApp({
      id: 'kinds',
      name: 'Kinds',
      version: '1',
      description: 'd',
      website: 'https://example.com',
      authentication: [auth.none()],
      sync: {
        types: {
          ok: {
            name: 'Ok',
            fields: {
              id: field.id(),
              name: field.title(),
              span: field.dateRange(),
              place: field.location(),
              face: field.avatar(),
              owner: field.user({ targetName: 'Owned' }),
              watchers: field.user({ cardinality: 'many-to-many', targetName: 'Watched' }),
            },
            async *data() {
              yield {
                id: 1,
                span: { start: '2026-01-01', end: '2026-01-31' },
                place: { longitude: 1, latitude: 2 },
                face: 'https://example.com/a.png',
                owner: 'ada@example.com',
                watchers: ['ada@example.com'],
              };
              yield { id: 2, span: '{"start":"2026-01-01","end":"2026-01-31"}', place: '52.5, 13.4' };
            },
          },
          wrong: {
            name: 'Wrong',
            fields: {
              id: field.id(),
              name: field.text(),
              watchers: field.user({ cardinality: 'many-to-many', targetName: 'W' }),
            },
            // @ts-expect-error a many-to-many user relation takes an array of e-mails
            async *data() {
              yield { id: 1, watchers: 'ada@example.com' };
            },
          },
          wrongRange: {
            name: 'Wrong range',
            fields: { id: field.id(), name: field.text(), span: field.dateRange() },
            // @ts-expect-error a range is {start, end} or its JSON string
            async *data() {
              yield { id: 1, span: { from: 'a' } };
            },
          },
        },
      },
    });
  });
});
