import { describe, expect, test } from 'vitest';
import { auth, defineApp, field, jsonItems, resume } from '../src/index.js';
import { testApp } from '../src/testing/index.js';
import { descriptorBase } from './fixtures/minimal.js';

// A data handler may yield items already in wire form as one JSON text (`jsonItems()`), which
// core splices into the answer untouched. Over real HTTP, a sync of such a type must give the
// service exactly what the same items yielded as objects give, page for page, in a full sync
// (spliced) and in a delta sync (parsed), whatever the mix of plain items and JSON arrays.

const fields = {
  id: field.id(),
  name: field.title(),
  done: field.bool(),
  span: field.dateRange(),
};

/** Row `i` as app code yields it: natural values, converted by core's serializer. */
const natural = (i: number) => ({
  id: i,
  name: `row "${i}" é\n`,
  done: i % 2 === 0,
  span: { start: '2026-01-01', end: `2026-01-${String((i % 28) + 1).padStart(2, '0')}` },
});
/** The same row in wire form, as a database would build it. */
const wire = (i: number) => {
  const row = natural(i);
  return { ...row, done: String(row.done), span: JSON.stringify(row.span) };
};

const TOTAL = 23;

/**
 * Rows in chunks of 4 with a resume point after each; within a chunk, how they are yielded
 * depends on `spliced`: chunks alternate between one JSON array, and a plain item, a JSON array
 * of two (with white space around it), an empty array and a plain item.
 */
async function* rows(spliced: boolean, cursor: unknown) {
  for (let start = typeof cursor === 'number' ? cursor : 0; start < TOTAL; start += 4) {
    const ids = Array.from({ length: Math.min(4, TOTAL - start) }, (_, k) => start + k);
    if (!spliced) {
      yield ids.map(natural);
    } else if ((start / 4) % 2 === 0) {
      yield jsonItems(JSON.stringify(ids.map(wire)), ids.length);
    } else {
      const [first, ...rest] = ids;
      yield natural(first!);
      const middle = rest.slice(0, 2);
      yield jsonItems(` \n${JSON.stringify(middle.map(wire))}\t`, middle.length);
      yield jsonItems('[ ]', 0);
      for (const id of rest.slice(2)) yield natural(id);
    }
    yield resume(start + 4);
  }
}

const app = defineApp({
  id: 'json-items',
  name: 'JSON items',
  ...descriptorBase,
  authentication: [auth.none()],
  pageSize: 6,
  sync: {
    types: {
      plain: { name: 'Plain', fields, delta: true, data: (ctx) => rows(false, ctx.cursor) },
      spliced: { name: 'Spliced', fields, delta: true, data: (ctx) => rows(true, ctx.cursor) },
      bad: {
        name: 'Bad',
        fields,
        async *data() {
          yield jsonItems('{"id":1}', 1);
        },
      },
    },
  },
});

describe('jsonItems() over HTTP', () => {
  test('a full sync of spliced pages equals the same items yielded as objects, page for page', async () => {
    const running = await testApp(app);
    try {
      const pagesOf = async (type: string) => {
        const pages: unknown[] = [];
        let pagination: unknown = null;
        for (;;) {
          const { status, body } = await running.data(type, { pagination });
          expect(status).toBe(200);
          pages.push(body.items);
          if (!body.pagination.hasNext) return pages;
          pagination = body.pagination.nextPageConfig;
        }
      };
      const plain = await pagesOf('plain');
      const spliced = await pagesOf('spliced');
      expect(spliced).toEqual(plain);
      expect(plain.flat()).toEqual(Array.from({ length: TOTAL }, (_, i) => wire(i)));
      // Pages of 6 from chunks of 4: JSON arrays that straddle a page were parsed and cut.
      expect(plain.map((p) => (p as unknown[]).length)).toEqual([6, 6, 6, 5]);
    } finally {
      await running.close();
    }
  });

  test('a delta sync parses the arrays: every item gets SET', async () => {
    const running = await testApp(app);
    try {
      const lastSynchronizedAt = '2026-01-01T00:00:00Z';
      const plain = await running.sync('plain', { lastSynchronizedAt });
      const spliced = await running.sync('spliced', { lastSynchronizedAt });
      expect(spliced.synchronizationType).toBe('delta');
      expect(spliced.items).toEqual(plain.items);
      expect(spliced.items[1]).toEqual({ ...wire(1), __syncAction: 'SET' });
    } finally {
      await running.close();
    }
  });

  test('a marker whose text is not a JSON array is an error naming the type, as JSON', async () => {
    const running = await testApp(app);
    try {
      const { status, body } = await running.data('bad');
      expect(status).toBe(500);
      expect(body).toEqual({ message: 'type "bad" yielded jsonItems() whose text is not a JSON array' });
    } finally {
      await running.close();
    }
  });
});
