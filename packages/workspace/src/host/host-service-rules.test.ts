// The host takes what the real service takes, over real HTTP against a raw Express app that answers
// as production apps do (fixtures/club-app.ts): the chosen authentication with keys it does not
// declare kept, required filters enforced before any sync, relation labels and reverse names as
// the service makes them, loose values coerced and counted, references to no synced row counted
// with the raw value kept readable, errors naming the call, type and page, and a failed run that
// counts and links the rows that landed. Runs on PGlite, and on Postgres when
// WEFT_TEST_DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets } from '../../test/support/databases.js';
import { loadCatalog } from '../schema/catalog.js';
import { type ClubState, clubState, serveClub } from './fixtures/club-app.js';
import { hostApi } from './fixtures/host-api.js';
import { mapOntoWorkspace } from './kept-fields.js';
import { type MappedType, mapSchema } from './schema-mapping.js';
import { startHostedOn } from './fixtures/hosted-on.js';
import type { HostedWorkspace } from './start-hosted-workspace.js';
import { logIn } from '../../test/support/page-session.js';

const TOKEN = 'host-rules-admin-token';

for (const target of databaseTargets()) {
  describe(`what the service takes [${target.name}]`, () => {
    let state: ClubState;
    let app: { url: string; close(): Promise<void> };
    let ws: HostedWorkspace;
    let stop: () => Promise<void> = async () => {};
    let sourceId = '';
    const api = hostApi(() => ws.url, TOKEN);

    async function query(q: Record<string, unknown>) {
      const { body } = await api('POST', '/api/commands', [
        { command: 'svc.entity/query', args: { query: { 'q/limit': 'q/no-limit', ...q } } },
      ]);
      expect(body[0].success, JSON.stringify(body[0])).toBe(true);
      return body[0].result as Record<string, any>[];
    }

    beforeAll(async () => {
      state = clubState();
      app = await serveClub(state);
      ({ ws, close: stop } = await startHostedOn(target, 'rules', { adminToken: TOKEN }));
    });
    afterAll(async () => {
      await app?.close();
      await stop();
    });

    it('refuses a source without a required filter, before any sync', async () => {
      const missing = await api('POST', '/api/host/sources', {
        url: app.url,
        authId: 'key',
        fields: { key: 'good-key' },
        filter: { note: 'x' },
      });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toBe('Filter "region" (Region) is required');
      const empty = await api('POST', '/api/host/sources', {
        url: app.url,
        authId: 'key',
        fields: { key: 'good-key' },
        filter: { region: '' },
      });
      expect(empty.status).toBe(400);
      expect(state.calls.some((c) => c.path.includes('/schema') || c.path.includes('/data'))).toBe(false);
    });

    it('takes the chosen authentication and keeps the keys it does not declare', async () => {
      const added = await api('POST', '/api/host/sources', {
        url: app.url,
        authId: 'key',
        fields: { key: 'good-key', libraryId: '4242' },
        filter: { region: 'north' },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      expect(added.body.authId).toBe('key');
      sourceId = added.body.id;
      const validate = state.calls.filter((c) => c.path === '/validate').at(-1);
      expect(validate?.body).toMatchObject({ id: 'key', fields: { key: 'good-key', libraryId: '4242' } });

      // A change that drops the required filter is refused too.
      const changed = await api('PATCH', `/api/host/sources/${sourceId}`, { filter: { note: 'y' } });
      expect(changed.status).toBe(400);
      expect(changed.body.message).toBe('Filter "region" (Region) is required');

      // Types the app does not have are refused, on a new source and on a change, naming the app's.
      const calls = state.calls.length;
      const unknownType = await api('POST', '/api/host/sources', {
        url: app.url,
        authId: 'key',
        fields: { key: 'good-key' },
        filter: { region: 'north' },
        types: ['venue', 'nope'],
      });
      expect(unknownType.status).toBe(400);
      expect(unknownType.body.message).toBe('The app has no type "nope" (its types: venue, member, event)');
      const retyped = await api('PATCH', `/api/host/sources/${sourceId}`, { types: ['hall'] });
      expect(retyped.status).toBe(400);
      expect(retyped.body.message).toBe('The app has no type "hall" (its types: venue, member, event)');
      // Nothing was synced or asked for the refused types.
      expect(
        state.calls.slice(calls).some((c) => c.path.includes('/schema') || c.path.includes('/data')),
      ).toBe(false);
    });

    it('labels relations, names reverse fields apart, coerces loose values and counts what it coerced', async () => {
      state.venues = [
        {
          id: 'v1',
          name: 'Hall',
          capacity: '120',
          rent: '99.5',
          open: 1,
          opened: '2024-3-5',
          since: '2024-3-5',
          // a range open on one side: the one day it names
          season: '{"start":"2024-06-01","end":null}',
        },
      ];
      state.members = [
        { id: 'm1', name: 'Ada' },
        { id: 'm2', name: 'Grace' },
      ];
      state.events = [
        // a to-one value as an array, a many-to-many value as a JSON string
        { id: 'e1', name: 'Opening', venue: ['v1'], host: 'm1', cohost: 'Grace', guests: '["m1","m2"]' },
        // references to rows the app never sent
        { id: 'e2', name: 'Lost', venue: 'v9', host: 'm7', cohost: 'Nobody', guests: ['m2', 'm8'] },
      ];
      const { body: run } = await api('POST', `/api/host/sources/${sourceId}/syncs?wait=true`);
      expect(run.status, run.error).toBe('succeeded');
      expect(run.rowsSet).toBe(5);
      // The data request carries the undeclared account key too.
      const data = state.calls.find((c) => c.path === '/api/v1/synchronizer/data');
      expect((data?.body.account as Record<string, unknown> | undefined)?.libraryId).toBe('4242');

      const [venue] = await query({
        'q/from': 'club/venue',
        'q/select': ['club/capacity', 'club/rent', 'club/open', 'club/opened', 'club/since', 'club/season'],
      });
      expect(venue).toEqual({
        'club/capacity': 120,
        'club/rent': '99.5', // decimals read back as exact text
        'club/open': true,
        'club/opened': '2024-03-05',
        'club/since': '2024-03-05T00:00:00.000Z',
        'club/season': { start: '2024-06-01', end: '2024-06-01' },
      });
      const events = await query({
        'q/from': 'club/event',
        'q/select': [
          'club/name',
          'club/venue-raw',
          'club/guests-raw',
          { 'club/venue': ['club/name'] },
          { 'club/host': ['club/name'] },
          { 'club/cohost': ['club/name'] },
          { 'club/guests': ['club/name'] },
        ],
        'q/order-by': [[['club/name'], 'q/asc']],
      });
      const names = (list: { 'club/name': string }[]) => list.map((x) => x['club/name']).sort();
      expect(events[1]).toMatchObject({
        'club/name': 'Opening',
        'club/venue-raw': 'v1',
        'club/guests-raw': 'm1, m2',
        'club/venue': { 'club/name': 'Hall' },
        'club/host': { 'club/name': 'Ada' },
        'club/cohost': { 'club/name': 'Grace' },
      });
      expect(names(events[1]!['club/guests'])).toEqual(['Ada', 'Grace']);
      // What resolves to nothing stays readable in the hidden raw field.
      expect(events[0]).toMatchObject({
        'club/name': 'Lost',
        'club/venue-raw': 'v9',
        'club/guests-raw': 'm2, m8',
        'club/venue': null,
        'club/host': null,
        'club/cohost': null,
      });
      expect(names(events[0]!['club/guests'])).toEqual(['Grace']);

      expect(run.error).toContain(
        'club/venue: 6 values coerced as the service does (1 × club/capacity: number sent as text, 1 × club/open: boolean sent as a number, 1 × club/opened: date without zero padding, 1 × club/rent: number sent as text, 1 × club/season: open date range (one side missing), stored as the one day or time it names, 1 × club/since: date without zero padding)',
      );
      expect(run.error).toContain(
        'club/event: 2 values coerced as the service does (1 × club/guests: many-to-many value sent as a JSON string, 1 × club/venue: to-one value sent as an array (first id kept))',
      );
      expect(run.error).toContain(
        'club/event: club/venue: 1 references resolve to no synced row (e.g. v9), kept as sent in club/venue-raw',
      );
      expect(run.error).toContain(
        'club/event: club/host: 1 references resolve to no synced row (e.g. m7), kept as sent in club/host-raw',
      );
      expect(run.error).toContain(
        'club/event: club/cohost: 1 references resolve to no synced row (e.g. Nobody), kept as sent in club/cohost-raw',
      );
      expect(run.error).toContain(
        'club/event: club/guests: 1 references resolve to no synced row (e.g. m8), kept as sent in club/guests-raw',
      );

      const catalog = await loadCatalog(ws.driver);
      const meta = (type: string, name: string) => catalog.field(catalog.type(type), name).meta;
      expect(meta('club/event', 'club/venue')['ui/label']).toBe('Venue');
      expect(meta('club/event', 'club/host')['ui/label']).toBe('Host');
      expect(meta('club/event', 'club/host-raw')['ui/label']).toBe('Host (raw)');
      expect(meta('club/event', 'club/venue-raw')).toMatchObject({
        'ui/label': 'Venue Id',
        'ui/hidden?': true,
      });
      // Hidden as the service hides it: the page's table shows the relation, not its raw value.
      const { cookie } = await logIn(ws.url, TOKEN);
      const table = await (await fetch(`${ws.url}/ui/type?name=club/event`, { headers: { cookie } })).text();
      expect(table).toMatch(/<th title="club\/venue"><a [^>]*>Venue<\/a><\/th>/);
      expect(table).not.toContain('club/venue-raw');
      // Three relations from event to member share the targetName "Events": three reverse fields.
      const reverse = catalog
        .type('club/member')
        .fields.filter((f) => f.meta['svc/relation'] !== undefined)
        .map((f) => [f.name, f.meta['ui/label']]);
      expect(reverse).toEqual([
        ['club/events', 'Events'],
        ['club/events-of-event', 'Events'],
        ['club/events-of-event-2', 'Events'],
      ]);
      expect(meta('club/venue', 'club/events')['ui/label']).toBe('Events');
    });

    it('keeps the reverse names on the next sync', async () => {
      const before = (await loadCatalog(ws.driver)).type('club/member').fields.map((f) => f.name);
      const { body: run } = await api('POST', `/api/host/sources/${sourceId}/syncs?wait=true`);
      expect(run.status, run.error).toBe('succeeded');
      expect((await loadCatalog(ws.driver)).type('club/member').fields.map((f) => f.name)).toEqual(before);
    });

    it('keeps the reverse names however a run maps the schema: sync, app webhook or Verify', async () => {
      // The schema with the event's fields in another order: mapped afresh, the reverse names of
      // its relations to members (all "Events") shift.
      const schema = (await (
        await fetch(`${app.url}/api/v1/synchronizer/schema`, { method: 'POST' })
      ).json()) as Record<string, Record<string, unknown>>;
      const reordered = {
        ...schema,
        event: Object.fromEntries(Object.entries(schema.event ?? {}).reverse()),
      };
      const types = ['venue', 'member', 'event'];
      const reverseNames = (mapped: MappedType[]) =>
        Object.fromEntries(
          (mapped.find((t) => t.appType === 'event')?.fields ?? []).flatMap((f) =>
            f.kind === 'relation' && f.targetType === 'club/member' ? [[f.relationId, f.partnerName]] : [],
          ),
        );
      const afresh = reverseNames(mapSchema('club', sourceId, reordered as never, types));
      const { mapped } = await mapOntoWorkspace(ws, {
        namespace: 'club',
        sourceId,
        schema: reordered as never,
        types,
      });
      const made = Object.fromEntries(
        (await loadCatalog(ws.driver))
          .type('club/member')
          .fields.filter((f) => f.meta['svc/relation'] !== undefined)
          .map((f) => [f.meta['svc/relation'], f.name]),
      );
      expect(afresh).not.toEqual(made);
      expect(reverseNames(mapped)).toEqual(made);
    });

    it('names the call, type and page of an error, and counts and links the rows that landed', async () => {
      state.brokenSecondVenuePage = true;
      state.members = [...state.members, { id: 'm3', name: 'Linus' }];
      state.events = [{ id: 'e3', name: 'Late', cohost: 'Linus', host: 'm3' }];
      const { body: run } = await api('POST', `/api/host/sources/${sourceId}/syncs?wait=true`);
      expect(run.status).toBe('failed');
      expect(run.error).toBe(
        'Sync failed: data of type venue, page 2: items must be an array (got an object)',
      );
      // Pages of other types under way when it failed are recorded first: the run counts them.
      expect(run.rowsSet).toBe(1 + 3 + 1);
      await expect
        .poll(
          async () =>
            (
              await query({
                'q/from': 'club/event',
                'q/select': ['club/name', { 'club/cohost': ['club/name'] }],
              })
            ).find((e) => e['club/name'] === 'Late')?.['club/cohost'],
          { timeout: 20_000 },
        )
        .toEqual({ 'club/name': 'Linus' });
    });

    it('tells on the page which types a run synced full and which delta', async () => {
      // A run whose app answered one type full and another delta is not simply "full".
      const [source] = await ws.apps.list();
      await ws.driver.query(
        `INSERT INTO weft_host_runs (id, source_id, kind, status, mode, progress)
         VALUES ($1, $2, 'manual', 'succeeded', 'full', $3)`,
        [
          randomUUID(),
          source!.id,
          JSON.stringify({ types: { event: { mode: 'full' }, member: { mode: 'delta' } } }),
        ],
      );
      const { cookie } = await logIn(ws.url, TOKEN);
      const page = await (await fetch(`${ws.url}/ui`, { headers: { cookie } })).text();
      expect(page).toContain('manual (full for event; delta for member)');
    });
  });
}
