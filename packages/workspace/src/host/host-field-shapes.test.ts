// The shapes of synced fields. Multi-selects, as the service makes them: a collection of the
// field's own option type (marked a component of its type), its options made from the schema's
// and, for names the schema did not list, from the data. An app sends the option names as a list,
// or as one comma-separated text; each sync makes a row's options exactly those sent. A field an
// earlier sync made in another shape (text where the app now sends files, a multi-select or a
// number; a select now multi or single; a number now text; text now rich) keeps it, with a
// warning, and every job of the run writes the values as it takes them: a value that does not
// fit is stored empty and counted. Verify compares with the same shapes. Over real HTTP; runs on
// PGlite, and on Postgres when WEFT_TEST_DATABASE_URL is set.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { cookieFrom, postLogin } from '../../test/support/page-session.js';
import { useAnsweringApp } from './fixtures/answering-app.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';

type Json = Record<string, unknown>;
const TOKEN = 'field-shapes-admin-token-41c2';

const schema = (noteType: Json): Json => ({
  task: {
    id: { name: 'Id', type: 'id' },
    name: { name: 'Name', type: 'text' },
    tags: {
      name: 'Tags',
      type: 'array[text]',
      subType: 'multi-select',
      options: [{ name: 'red', color: '#e03131' }, { name: 'blue' }],
    },
    labels: { name: 'Labels', type: 'text', subType: 'multi-select' },
    notes: { name: 'Notes', ...noteType },
  },
});

let answers: Record<string, unknown>;
const firstAnswers = (): Record<string, unknown> => ({
  '/': {
    id: 'multi',
    name: 'Multi',
    version: '1',
    description: 'multi-selects',
    authentication: [{ id: 'public', name: 'Public', fields: [] }],
    sources: [],
  },
  '/validate': { name: 'Public' },
  '/api/v1/synchronizer/config': { types: [{ id: 'task', name: 'Task' }], filters: [] },
  '/api/v1/synchronizer/schema': schema({ type: 'text' }),
  '/api/v1/synchronizer/data': {
    items: [
      { id: 't1', name: 'One', tags: ['red', 'green'], labels: 'a, b', notes: 'x, y' },
      { id: 't2', name: 'Two', tags: [], labels: null, notes: null },
      { id: 't3', name: 'Three', tags: ['blue', 'blue', ''], labels: ' c ', notes: 'z' },
    ],
    pagination: { hasNext: false },
  },
});

const app = useAnsweringApp(() => answers);

for (const target of databaseTargets()) {
  describe(`multi-selects [${target.name}]`, () => {
    let ws: HostedWorkspace;
    let stopWorkspace: () => Promise<void> = async () => {};
    beforeAll(async () => {
      ({ ws, close: stopWorkspace } = await startHostedOn(target, 'multi', {
        jobs: { pollSeconds: 0.5 },
        adminToken: TOKEN,
      }));
    });
    afterAll(async () => {
      await stopWorkspace();
    });

    const execute = async (command: string, args: Json): Promise<unknown> => {
      const [r] = await ws.execute([{ command, args }]);
      if (!r?.success) throw new Error(JSON.stringify(r));
      return r.result;
    };
    /** Each task's options per multi-select field (names, sorted), and its notes. */
    const stored = async (ns: string) => {
      const names = (field: string) => ({
        'q/from': field,
        'q/select': ['enum/name'],
        'q/limit': 'q/no-limit',
      });
      const rows = (await execute('svc.entity/query', {
        query: {
          'q/from': `${ns}/task`,
          'q/select': {
            name: `${ns}/name`,
            tags: names(`${ns}/tags`),
            labels: names(`${ns}/labels`),
            notes: `${ns}/notes`,
          },
          'q/limit': 'q/no-limit',
        },
      })) as { name: string; tags: Json[]; labels: Json[]; notes: string | null }[];
      const sorted = (items: Json[]) => items.map((o) => String(o['enum/name'])).sort();
      return Object.fromEntries(
        rows.map((r) => [r.name, { tags: sorted(r.tags), labels: sorted(r.labels), notes: r.notes }]),
      );
    };

    it('makes a collection of options, sets exactly the options sent, and keeps a text field text', async () => {
      answers = firstAnswers();
      const source = await ws.apps.addSource({ url: app.url, fields: {} });
      const ns = source.namespace;
      const first = await ws.apps.sync(source.id, { wait: true });
      expect(first).toMatchObject({ status: 'succeeded', rowsSet: 3 });
      expect(await stored(ns)).toEqual({
        One: { tags: ['green', 'red'], labels: ['a', 'b'], notes: 'x, y' },
        Two: { tags: [], labels: [], notes: null },
        Three: { tags: ['blue'], labels: ['c'], notes: 'z' },
      });

      // The field as the service has it: a collection of its option type, a component of its type.
      const types = (
        (await execute('svc.schema/query', {})) as {
          'svc/types': { 'svc/name': string; 'svc/meta': Json; 'svc/fields': Json[] }[];
        }
      )['svc/types'];
      const task = types.find((t) => t['svc/name'] === `${ns}/task`);
      const tags = task?.['svc/fields'].find((f) => f['svc/name'] === `${ns}/tags`);
      expect(tags?.['svc/meta']).toMatchObject({ 'svc/collection?': true, 'svc/type-component?': true });
      const optionType = types.find((t) => t['svc/name'] === tags?.['svc/type']);
      expect(optionType?.['svc/meta']).toMatchObject({ 'svc/enum?': true });
      // The schema's options in its order, with their colour; then the one inferred from the data.
      const options = (await execute('svc.entity/query', {
        query: {
          'q/from': String(tags?.['svc/type']),
          'q/select': ['enum/name', 'enum/color'],
          'q/order-by': [[['svc/rank'], 'q/asc']],
          'q/limit': 'q/no-limit',
        },
      })) as Json[];
      expect(options).toEqual([
        { 'enum/name': 'red', 'enum/color': '#e03131' },
        expect.objectContaining({ 'enum/name': 'blue' }),
        expect.objectContaining({ 'enum/name': 'green' }),
      ]);

      // The page's table shows a multi-select as a column of its options (neither sorted nor
      // filtered by: the link and the filter's choice are for other columns).
      const cookie = cookieFrom(await postLogin(ws.url, TOKEN), 'weft_page') as string;
      const table = await (
        await fetch(`${ws.url}/ui/type?name=${encodeURIComponent(`${ns}/task`)}`, { headers: { cookie } })
      ).text();
      expect(table).toContain(`<th title="${ns}/tags">Tags</th>`);
      expect(table).not.toContain(`sort=${encodeURIComponent(`${ns}/tags`)}`);
      expect(table).not.toContain(`<option value="${ns}/tags"`);
      expect(table).toMatch(
        /<td><a href="[^"]+">green<\/a>, <a href="[^"]+">red<\/a><\/td>|<td><a href="[^"]+">red<\/a>, <a href="[^"]+">green<\/a><\/td>/,
      );

      // The app changes its values, sends one list as text, and now declares its notes a
      // multi-select: the notes field was made as text, and stays so.
      answers['/api/v1/synchronizer/schema'] = schema({ type: 'array[text]', subType: 'multi-select' });
      answers['/api/v1/synchronizer/data'] = {
        items: [
          { id: 't1', name: 'One', tags: ['blue'], labels: 'b', notes: ['x', 'w'] },
          { id: 't2', name: 'Two', tags: 'red, blue', labels: ['d'], notes: 'v' },
          { id: 't3', name: 'Three', tags: null, labels: 'c', notes: null },
        ],
        pagination: { hasNext: false },
      };
      const second = await ws.apps.sync(source.id, { wait: true });
      expect(second).toMatchObject({ status: 'succeeded', rowsSet: 3 });
      expect(second.error).toContain(
        `${ns}/task: field ${ns}/notes is svc/text, the app now sends a multi-select; kept as it is, the values read as it takes them`,
      );
      expect(await stored(ns)).toEqual({
        One: { tags: ['blue'], labels: ['b'], notes: 'x, w' },
        Two: { tags: ['blue', 'red'], labels: ['d'], notes: 'v' },
        Three: { tags: [], labels: ['c'], notes: null },
      });

      // Verify reads the options: nothing differs, until the app sends other options.
      expect((await ws.apps.verify(source.id)).verify).toMatchObject({ drifted: false });
      (answers['/api/v1/synchronizer/data'] as { items: Json[] }).items[0] = {
        id: 't1',
        name: 'One',
        tags: ['blue', 'red'],
        labels: 'b',
        notes: ['x', 'w'],
      };
      const verified = (await ws.apps.verify(source.id)).verify as {
        drifted: boolean;
        types: { samples: { changed: Json[] } }[];
      };
      expect(verified.drifted).toBe(true);
      expect(verified.types[0]?.samples.changed[0]).toMatchObject({ id: 't1', fields: ['tags'] });
    }, 60_000);

    const toTask = (name: string, cardinality = 'many-to-one'): Json => ({
      type: cardinality === 'many-to-many' ? 'array[text]' : 'text',
      relation: { cardinality, name, targetType: 'task', targetName: `${name} of`, targetFieldId: 'id' },
    });

    it('keeps the shape of a field made before: a select turned multi or single, files once text, a number now text', async () => {
      const shapes = (...changed: Json[]): Json => ({
        task: {
          id: { name: 'Id', type: 'id' },
          name: { name: 'Name', type: 'text' },
          ...Object.fromEntries(
            ['status', 'group', 'files', 'count', 'size', 'body', 'link', 'ref', 'owner', 'helpers'].map(
              (id, i) => [
                id,
                {
                  name: id,
                  ...(id === 'status' ? { options: [{ name: 'Open' }, { name: 'Done' }] } : {}),
                  ...changed[i],
                },
              ],
            ),
          ),
        },
      });
      answers = {
        ...firstAnswers(),
        '/': { ...(firstAnswers()['/'] as Json), id: 'shapes', name: 'Shapes' },
        '/api/v1/synchronizer/schema': shapes(
          { type: 'text', subType: 'single-select' },
          { type: 'array[text]', subType: 'multi-select' },
          { type: 'text' },
          { type: 'text' },
          { type: 'number' },
          { type: 'text' },
          { type: 'text' },
          toTask('Ref'),
          toTask('Owner'),
          toTask('Helpers', 'many-to-many'),
        ),
        '/api/v1/synchronizer/data': {
          items: [
            {
              id: 't1',
              name: 'One',
              status: 'Open',
              group: ['g1', 'g2'],
              files: 'a.txt',
              count: 'twelve',
              size: 1.5,
              body: 'plain',
              link: 'hello',
              ref: 't1',
              owner: 't1',
              helpers: ['t1'],
            },
          ],
        },
      };
      const source = await ws.apps.addSource({ url: app.url, fields: {} });
      const ns = source.namespace;
      expect(await ws.apps.sync(source.id, { wait: true })).toMatchObject({ status: 'succeeded' });

      answers['/api/v1/synchronizer/schema'] = shapes(
        { type: 'array[text]', subType: 'multi-select' },
        { type: 'text', subType: 'single-select' },
        { type: 'array[text]', subType: 'file' },
        { type: 'number', subType: 'integer' },
        { type: 'text' },
        { type: 'text', subType: 'md' },
        toTask('Link'),
        { type: 'text' },
        toTask('Owner', 'many-to-many'),
        toTask('Helpers'),
      );
      answers['/api/v1/synchronizer/data'] = {
        items: [
          {
            id: 't1',
            name: 'One',
            status: ['Done', 'Open'],
            group: 'g2',
            files: [`${app.url}/f.txt`],
            count: 13,
            size: '2.25',
            body: '# Now markdown',
            link: 't1',
            ref: 'plain',
            owner: ['t2', 't1'],
            helpers: 't2',
          },
          { id: 't2', name: 'Two', size: 'large' },
        ],
      };
      const run = await ws.apps.sync(source.id, { wait: true });
      expect(run).toMatchObject({ status: 'succeeded', rowsSet: 2 });
      for (const [field, was, now] of [
        ['status', 'a single-select', 'a multi-select'],
        ['group', 'a multi-select', 'a single-select'],
        ['files', 'svc/text', 'files'],
        ['count', 'svc/text', 'svc/int'],
        ['size', 'svc/decimal', 'svc/text'],
        ['body', 'svc/text', 'rich text'],
        ['owner', `a relation to ${ns}/task`, `a collection of ${ns}/task`],
        ['helpers', `a collection of ${ns}/task`, `a relation to ${ns}/task`],
      ])
        expect(run.error).toContain(
          `${ns}/task: field ${ns}/${field} is ${was}, the app now sends ${now}; kept as it is, the values read as it takes them`,
        );
      // A relation where there was text, text where there was a relation: no value fits, the
      // field is left as it is.
      for (const [field, was, now] of [
        ['link', 'svc/text', `a relation to ${ns}/task`],
        ['ref', `a relation to ${ns}/task`, 'svc/text'],
      ])
        expect(run.error).toContain(
          `${ns}/task: field ${ns}/${field} is ${was}, the app now sends ${now}; left as it is and not written`,
        );
      // A text that is no number is stored empty in the number field, and counted.
      expect(run.error).toContain(
        `${ns}/task: 1 value did not fit its field and was stored empty (1 × ${ns}/size)`,
      );
      const rows = (await execute('svc.entity/query', {
        query: {
          'q/from': `${ns}/task`,
          'q/select': {
            name: `${ns}/name`,
            status: [`${ns}/status`, 'enum/name'],
            group: { 'q/from': `${ns}/group`, 'q/select': ['enum/name'], 'q/limit': 'q/no-limit' },
            files: `${ns}/files`,
            count: `${ns}/count`,
            size: `${ns}/size`,
            body: `${ns}/body`,
            link: `${ns}/link`,
            ref: [`${ns}/ref`, `${ns}/name`],
            owner: [`${ns}/owner`, `${ns}/name`],
            helpers: { 'q/from': `${ns}/helpers`, 'q/select': [`${ns}/name`], 'q/limit': 'q/no-limit' },
          },
          'q/order-by': [[[`${ns}/name`], 'q/asc']],
          'q/limit': 2,
        },
      })) as Json[];
      expect(rows[0]).toEqual({
        name: 'One',
        status: 'Done',
        group: [{ 'enum/name': 'g2' }],
        files: `${app.url}/f.txt`,
        count: '13',
        size: '2.25',
        body: '# Now markdown',
        link: 'hello',
        ref: 'One',
        // The first of the list the app now sends; the one target it now sends, as a list.
        owner: 'Two',
        helpers: [{ [`${ns}/name`]: 'Two' }],
      });
      expect(rows[1]).toMatchObject({ name: 'Two', size: null });
      // The same shapes on a verify: nothing differs.
      expect((await ws.apps.verify(source.id)).verify).toMatchObject({ drifted: false });
    }, 60_000);
  });
}
