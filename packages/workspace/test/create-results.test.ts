import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { COPY_MIN_ROWS } from '../src/entities/entity-store.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';
import { hookReceiver } from './support/hook-receiver.js';

// execute(commands, {createResults: false}) is for in-process writers that read no per-row
// results (the app host's page writes): creates of a type nothing listens to answer null and
// build nothing per row; once a webhook watches the type, the same call answers the entities and
// the webhook gets every create, as without the option. Short runs (one INSERT) and long ones
// (COPY where the engine has it) alike.

const T = 'quiet/item';
const LONG = COPY_MIN_ROWS + 10;
const SHORT = Math.min(COPY_MIN_ROWS - 1, 20);

const batch = (n: number, from: number) => ({
  command: 'svc.command/batch',
  args: {
    commands: Array.from({ length: n }, (_, i) => ({
      command: 'svc.entity/create',
      args: {
        type: T,
        entity: {
          'svc/id': randomUUID(),
          'quiet/name': `row ${from + i}`,
          'quiet/at': '2026-05-01T10:00:00.000Z',
        },
      },
    })),
  },
});

describeEachDatabase('creates without per-row results', (target) => {
  const h = useWorkspace(target);
  const rx = hookReceiver();

  const stored = async () =>
    (await h.run('svc.entity/query', {
      query: { 'q/from': T, 'q/select': ['svc/id', 'quiet/name', 'quiet/at'], 'q/limit': 'q/no-limit' },
    })) as any[];

  beforeAll(async () => {
    await rx.start();
    await h.run('schema.type/create', typeArgs(T, [['quiet/at', 'svc/date-time']]));
  });
  afterAll(() => rx.stop());

  it('a type nothing listens to: every create answers null, and the rows are stored', async () => {
    const results = await h.ws.execute([batch(SHORT, 0), batch(LONG, SHORT)], { createResults: false });
    expect(results).toEqual([
      { success: true, result: Array(SHORT).fill(null) },
      { success: true, result: Array(LONG).fill(null) },
    ]);
    const rows = await stored();
    expect(rows.map((r) => r['quiet/name'])).toEqual(
      Array.from({ length: SHORT + LONG }, (_, i) => `row ${i}`),
    );
    expect(rows.every((r) => r['quiet/at'] === '2026-05-01T10:00:00.000Z')).toBe(true);
    // Without the option the same creates answer the entities.
    const [plain] = await h.ws.execute([batch(LONG, 0)]);
    expect(plain?.success && (plain.result as any[])[0]['quiet/name']).toBe('row 0');
  });

  it('a type a webhook watches: the entities are answered and delivered as without the option', async () => {
    const hook = (await h.request('POST', '/api/webhooks/v2', { url: rx.url, type: T })).body;
    const before = (await stored()).length;
    for (const n of [SHORT, LONG]) {
      rx.bodies.length = 0;
      const [r] = await h.ws.execute([batch(n, 0)], { createResults: false });
      expect(r?.success).toBe(true);
      const result = (r as { result: any[] }).result;
      expect(result).toHaveLength(n);
      expect(result.every((e) => e?.['svc/id'] && e['quiet/name'])).toBe(true);
      const bodies = await rx.until(1);
      expect(bodies[0]?.body.effects).toEqual(
        result.map((e) => ({ effect: 'svc.entity/create', id: e['svc/id'], type: T, values: e })),
      );
    }
    expect((await stored()).length).toBe(before + SHORT + LONG);
    await h.request('DELETE', `/api/webhooks/v2/${hook.id}`);
  });
});
