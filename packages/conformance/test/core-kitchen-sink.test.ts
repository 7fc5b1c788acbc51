// Cross-check of core and the kit: an app written with @weft/core that uses every schema field
// builder, a delta type with removals, filters with datalists, webhooks and actions must pass
// every check. A failure here means core emits something the kit (or the spec) refuses.
import { ActionError, arg, auth, defineApp, field, input, remove, resume } from '@weft/core';
import { testApp } from '@weft/core/testing';
import { expect, test } from 'vitest';
import { runConformance } from '../src/index.js';

const app = defineApp({
  id: 'kitchen-sink',
  name: 'Kitchen sink',
  version: '1.0.0',
  description: 'Every field kind weft can describe',
  website: 'https://example.com',
  logo: { svg: '<svg xmlns="http://www.w3.org/2000/svg"/>' },
  authentication: [
    auth.fields({
      id: 'key',
      name: 'API key',
      fields: {
        key: input.password({ name: 'Key' }),
        help: input.link({ name: 'Help', url: 'https://example.com/help' }),
      },
      validate: async (account) => {
        if (account.key !== 'k-123') throw new ActionError('bad key', { status: 401 });
        return { name: 'Kitchen' };
      },
    }),
  ],
  sync: {
    filters: {
      owner: input.list({ name: 'Owner', datalist: true, optional: true }),
      tags: input.multidropdown({ name: 'Tags', datalist: true, dependsOn: ['owner'], optional: true }),
      when: input.date({ name: 'When', optional: true }),
      query: input.highlightText({ name: 'Query', editorMode: 'json', optional: true }),
    },
    datalists: {
      owner: async () => [{ title: 'Ada', value: 'u1' }],
      tags: async ({ dependsOn }) => [{ title: `tag of ${String(dependsOn.owner)}`, value: 't1' }],
    },
    types: {
      owner: {
        name: 'Owner',
        fields: { id: field.id(), name: field.text(), avatar: field.avatar(), email: field.email() },
        async *data() {
          yield [
            { id: 'u1', name: 'Ada', avatar: 'https://example.com/ada.png', email: 'ada@example.com' },
            { id: 'u2', name: 'Grace', avatar: null, email: null },
          ];
        },
      },
      thing: {
        name: 'Thing',
        delta: true,
        pageSize: 7,
        fields: {
          id: field.id(),
          name: field.title(),
          notes: field.textArray(),
          count: field.integer(),
          weight: field.number({ precision: 2, unit: 'kg' }),
          price: field.money({ currencyCode: 'EUR' }),
          share: field.percent(),
          phone: field.phone(),
          done: field.bool(),
          at: field.date(),
          day: field.day(),
          span: field.dateRange(),
          window: field.dateTimeRange(),
          site: field.url(),
          body: field.markdown(),
          html: field.html(),
          icon: field.icon(),
          state: field.workflow({
            options: [
              { name: 'Open', default: true },
              { name: 'Closed', final: true },
            ],
          }),
          size: field.singleSelect({ options: [{ name: 'S' }, { name: 'L', color: '#ff0000' }] }),
          labels: field.multiSelect({ options: [{ name: 'red' }, { name: 'blue' }] }),
          files: field.files(),
          place: field.location(),
          owner: field.relation({ to: 'owner', cardinality: 'many-to-one', targetName: 'Things' }),
          watchers: field.relation({ to: 'owner', cardinality: 'many-to-many', targetName: 'Watched' }),
        },
        async *data({ cursor, mode }) {
          if (mode === 'delta') {
            yield { id: 't-1', name: 'changed' };
            yield remove('t-2');
            return;
          }
          let n = typeof cursor === 'number' ? cursor : 0;
          while (n < 20) {
            const batch = [];
            for (const end = Math.min(n + 5, 20); n < end; n += 1) {
              batch.push({
                id: `t-${n}`,
                name: `Thing ${n}`,
                notes: ['a', 'b'],
                count: n,
                weight: n / 3,
                price: 9.99,
                share: 0.5,
                phone: '+49 30 1234567',
                done: n % 2 === 0,
                at: '2026-11-22T10:00:00.000Z',
                day: '2026-11-22',
                span: { start: '2026-11-01', end: '2026-11-30' },
                window: { start: '2026-11-01T08:00:00.000Z', end: '2026-11-01T17:00:00.000Z' },
                site: 'https://example.com',
                body: '**bold**',
                html: '<b>bold</b>',
                icon: '🧪',
                state: n % 3 === 0 ? 'Closed' : 'Open',
                size: 'S',
                labels: ['red'],
                files: ['app://resource?name=t.txt'],
                place: { longitude: 13.4, latitude: 52.5, fullAddress: 'Berlin' },
                owner: 'u1',
                watchers: ['u1', 'u2'],
              });
            }
            yield batch;
            yield resume(n);
          }
        },
      },
    },
    webhooks: {
      install: async () => ({ id: 'wh', events: ['thing.changed'] }),
      uninstall: async () => {},
      verify: async ({ payload }) => {
        if (!(payload as { id?: string } | null)?.id) throw new ActionError('unknown event', { status: 401 });
        return 'wh';
      },
      transform: async () => ({ thing: [{ id: 't-1', name: 'pushed' }] }),
    },
  },
  actions: {
    note: {
      name: 'Add note',
      args: { text: arg.textarea({ name: 'Text', template: true }) },
      run: ({ args }) => {
        if (args.text === 'fail') throw new ActionError('refused');
      },
    },
  },
});

test('an app using every core field builder, delta, webhooks and actions passes every check', async () => {
  const running = await testApp(app);
  try {
    const report = await runConformance(running.url, {
      account: { key: 'k-123' },
      filter: { when: 'last 3 months' },
      actions: [
        { action: 'note', args: { text: 'hello' }, expect: 'success' },
        { action: 'note', args: { text: 'fail' }, expect: 'failure' },
      ],
    });
    const failed = report.checks.filter((c) => c.status === 'fail');
    expect(failed).toEqual([]);
    // Core sends date ranges as JSON strings and avatars as one URL: nothing may warn.
    expect(report.checks.filter((c) => c.status === 'warn')).toEqual([]);
    expect(report.sync.thing?.count).toBe(20);
    expect(report.sync.thing?.pages).toBe(3);
  } finally {
    await running.close();
  }
});
