import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type RouterOptions,
  auth,
  createServer,
  defineApp,
  field,
  jsonLogger,
  resume,
} from '../src/index.js';
import { crossesReplayThreshold } from '../src/paging/replay-warning.js';
import { type TestApp, connectTestApp } from '../src/testing/index.js';
import { descriptorBase } from './fixtures/minimal.js';

const ROWS = 150;
const PAGE = 10;
const fields = { id: field.id(), name: field.text() };

// Two handlers that replay (no resume point at all) and one that resumes after each upstream
// page of 10 rows, like a handler over a paged API should.
const app = defineApp({
  id: 'replay',
  name: 'Replay',
  ...descriptorBase,
  authentication: [auth.none()],
  pageSize: PAGE,
  sync: {
    types: {
      plain: {
        name: 'Plain',
        fields,
        async *data() {
          for (let n = 0; n < ROWS; n += 1) yield { id: `p${n}`, name: `${n}` };
        },
      },
      other: {
        name: 'Other',
        fields,
        async *data() {
          for (let n = 0; n < ROWS; n += 1) yield { id: `o${n}`, name: `${n}` };
        },
      },
      resumed: {
        name: 'Resumed',
        fields,
        async *data({ cursor }) {
          for (let start = typeof cursor === 'number' ? cursor : 0; start < ROWS; start += PAGE) {
            yield Array.from({ length: PAGE }, (_, i) => ({ id: `r${start + i}`, name: `${start + i}` }));
            yield resume(start + PAGE);
          }
        },
      },
    },
  },
});

interface Running {
  client: TestApp;
  warnings: Record<string, unknown>[];
}

/** The app on a local port, its warnings captured from the real JSON logger. */
async function start(options: Omit<RouterOptions, 'logger'> = {}): Promise<Running> {
  const warnings: Record<string, unknown>[] = [];
  const logger = jsonLogger((line, level) => {
    if (level === 'warn') warnings.push(JSON.parse(line));
  });
  const server = await new Promise<Server>((resolve) => {
    const s = createServer(app, { ...options, logger }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const client = connectTestApp(`http://127.0.0.1:${port}`, async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { client, warnings };
}

/** Every page of a sync, as the service fetches them: the replayed-rows header of each. */
async function sync(client: TestApp, type: string): Promise<{ ids: unknown[]; replayed: number[] }> {
  const ids: unknown[] = [];
  const replayed: number[] = [];
  let pagination: unknown = null;
  for (;;) {
    const res = await client.data(type, { pagination });
    expect(res.status).toBe(200);
    replayed.push(Number(res.headers.get('x-weft-replayed-rows')));
    ids.push(...res.body.items.map((item: { id: unknown }) => item.id));
    if (!res.body.pagination.hasNext) return { ids, replayed };
    pagination = res.body.pagination.nextPageConfig;
  }
}

const replayWarnings = (running: Running) =>
  running.warnings.filter((w) => typeof w.msg === 'string' && w.msg.includes('replayed'));

describe('replay warning (default threshold: 10 pages)', () => {
  let running: Running;
  beforeAll(async () => {
    running = await start();
  });
  afterAll(() => running.client.close());

  test('a handler without resume() is warned about once per type and sync, naming the fix', async () => {
    const first = await sync(running.client, 'plain');
    expect(first.ids).toHaveLength(ROWS);
    // Page k replays the k-1 pages before it.
    expect(first.replayed).toEqual(Array.from({ length: ROWS / PAGE }, (_, k) => k * PAGE));
    expect(replayWarnings(running)).toHaveLength(1);
    const [warning] = replayWarnings(running);
    expect(warning).toMatchObject({ level: 'warn', requestedType: 'plain', replayedRows: 10 * PAGE });
    expect(warning!.msg).toContain('type "plain" replayed 100 rows');
    expect(warning!.msg).toContain('`yield resume(...)` after each upstream page');

    // Another type warns for itself; a second sync of the first type warns again, once.
    await sync(running.client, 'other');
    await sync(running.client, 'plain');
    expect(replayWarnings(running).map((w) => w.requestedType)).toEqual(['plain', 'other', 'plain']);
  });

  test('a handler that resumes after each upstream page replays nothing and is not warned about', async () => {
    const before = replayWarnings(running).length;
    const { ids, replayed } = await sync(running.client, 'resumed');
    expect(ids).toHaveLength(ROWS);
    expect(new Set(replayed)).toEqual(new Set([0]));
    expect(replayWarnings(running)).toHaveLength(before);
  });
});

describe('replay warning threshold', () => {
  test('replayWarningPages sets the threshold in pages; false turns the warning off but not the header', async () => {
    const low = await start({ replayWarningPages: 2 });
    const off = await start({ replayWarningPages: false });
    try {
      await sync(low.client, 'plain');
      expect(replayWarnings(low).map((w) => w.replayedRows)).toEqual([2 * PAGE]);
      const { replayed } = await sync(off.client, 'plain');
      expect(replayed.at(-1)).toBe(ROWS - PAGE);
      expect(replayWarnings(off)).toEqual([]);
    } finally {
      await low.client.close();
      await off.client.close();
    }
  });

  test('the skip count crosses the threshold on exactly one page of a stretch without resume points', () => {
    const crossing = (pageSize: number, pages: number, thresholdPages: number) =>
      Array.from({ length: pages }, (_, k) => k * pageSize).filter((skip) =>
        crossesReplayThreshold({ pageSize, skip, thresholdPages }),
      );
    expect(crossing(1000, 1000, 10)).toEqual([10_000]);
    expect(crossing(7, 50, 1.5)).toEqual([14]);
    expect(crossing(7, 5, 10)).toEqual([]);
    // The threshold is at least one page: less is what a resume point mid-page costs.
    expect(crossesReplayThreshold({ pageSize: 100, skip: 99, thresholdPages: 0.5 })).toBe(false);
    expect(crossesReplayThreshold({ pageSize: 100, skip: 100, thresholdPages: 0.5 })).toBe(true);
  });
});
