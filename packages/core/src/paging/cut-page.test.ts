import { describe, expect, test } from 'vitest';
import { jsonItems, remove, resume } from '../define/markers.js';
import { cutPage } from './cut-page.js';
import type { PageState } from './page-state.js';

async function* rows(n: number, every = 0, start = 0) {
  for (let i = start; i < n; i += 1) {
    yield { id: i };
    if (every && (i + 1) % every === 0) yield resume(i + 1);
  }
}

async function drain(
  make: (state: PageState) => AsyncIterable<unknown>,
  pageSize: number,
  mode: 'full' | 'delta' = 'full',
) {
  const pages: unknown[][] = [];
  let state: PageState = { cursor: undefined, skip: 0 };
  for (;;) {
    const page = await cutPage(make(state), { pageSize, state, mode, type: 't' });
    pages.push(page.items);
    if (!page.next) return pages;
    state = JSON.parse(JSON.stringify(page.next));
  }
}

describe('cutPage', () => {
  test('resume points let the next page restart mid-way without repeats or gaps', async () => {
    const pages = await drain((s) => rows(23, 5, typeof s.cursor === 'number' ? s.cursor : 0), 7);
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 2]);
    expect(pages.flat()).toEqual(Array.from({ length: 23 }, (_, id) => ({ id })));
  });
  test('without resume points the handler is replayed and what was sent is skipped', async () => {
    const pages = await drain(() => rows(10), 4);
    expect(pages.flat().map((r) => (r as { id: number }).id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
  test('a full page ends on the resume point that follows it, and without one hasNext is exact', async () => {
    const resumable = await drain((s) => rows(8, 4, typeof s.cursor === 'number' ? s.cursor : 0), 4);
    expect(resumable.map((p) => p.length)).toEqual([4, 4, 0]);
    const plain = await drain(() => rows(8), 4);
    expect(plain.map((p) => p.length)).toEqual([4, 4]);
  });
  test('the handler is not pulled past the resume point that ends a full page (no wasted upstream fetch)', async () => {
    let fetches = 0;
    async function* upstream(state: PageState) {
      let offset = typeof state.cursor === 'number' ? state.cursor : 0;
      while (offset < 30) {
        fetches += 1;
        yield Array.from({ length: 10 }, (_, i) => ({ id: offset + i }));
        offset += 10;
        yield resume(offset);
      }
    }
    const pages = await drain(upstream, 10);
    expect(pages.flat()).toHaveLength(30);
    // 3 upstream pages, each fetched once, plus the check that nothing follows the last one.
    expect(fetches).toBe(3);
  });
  test('an empty stream is one empty last page', async () => {
    expect(await drain(() => rows(0), 5)).toEqual([[]]);
  });
  test('removals are REMOVE rows in delta and dropped in full; items get SET in delta', async () => {
    async function* changes() {
      yield { id: 1 };
      yield remove(2);
      yield { id: 3, __syncAction: 'SET' };
    }
    expect((await drain(changes, 10, 'delta'))[0]).toEqual([
      { id: 1, __syncAction: 'SET' },
      { id: 2, __syncAction: 'REMOVE' },
      { id: 3, __syncAction: 'SET' },
    ]);
    expect((await drain(changes, 10, 'full'))[0]).toEqual([{ id: 1 }, { id: 3, __syncAction: 'SET' }]);
  });
  test('the handler is closed after each page so its finally blocks run', async () => {
    let closed = 0;
    async function* tracked() {
      try {
        yield* rows(10);
      } finally {
        closed += 1;
      }
    }
    const pages = await drain(tracked, 3);
    expect(pages).toHaveLength(4);
    expect(closed).toBe(4);
  });
  test('a non-object or an item without id is refused', async () => {
    async function* bad() {
      yield 42;
    }
    await expect(
      cutPage(bad(), { pageSize: 5, state: { cursor: undefined, skip: 0 }, mode: 'full', type: 'x' }),
    ).rejects.toThrow('type "x" yielded number, not an item object');
  });
});

describe('cutPage with batches', () => {
  test('a yielded array is a batch that may straddle pages, with resume points inside', async () => {
    async function* batches(state: PageState) {
      let offset = typeof state.cursor === 'number' ? state.cursor : 0;
      while (offset < 25) {
        const batch = Array.from({ length: Math.min(10, 25 - offset) }, (_, i) => ({ id: offset + i }));
        offset += batch.length;
        yield [...batch, resume(offset)];
      }
    }
    const pages = await drain(batches, 4);
    expect(pages.map((p) => p.length)).toEqual([4, 4, 4, 4, 4, 4, 1]);
    expect(pages.flat()).toEqual(Array.from({ length: 25 }, (_, id) => ({ id })));
  });
});

describe('cutPage batch edge cases', () => {
  test('a batch in a delta sync gets SET and REMOVE rows; an item without id in a batch is refused', async () => {
    async function* delta() {
      yield [{ id: 1 }, remove(2), { id: 3 }];
    }
    expect((await drain(delta, 10, 'delta'))[0]).toEqual([
      { id: 1, __syncAction: 'SET' },
      { id: 2, __syncAction: 'REMOVE' },
      { id: 3, __syncAction: 'SET' },
    ]);
    async function* idless() {
      yield [{ id: 1 }, { name: 'no id' }];
    }
    await expect(
      cutPage(idless(), { pageSize: 5, state: { cursor: undefined, skip: 0 }, mode: 'full', type: 'y' }),
    ).rejects.toThrow('type "y" yielded an item without `id` (item 2 of this page)');
  });
  test('a replayed batch skips what was sent, then continues on the fast path', async () => {
    async function* replay() {
      yield Array.from({ length: 12 }, (_, id) => ({ id }));
    }
    const pages = await drain(replay, 5);
    expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
    expect(pages.flat()).toEqual(Array.from({ length: 12 }, (_, id) => ({ id })));
  });
});

describe('cutPage with jsonItems()', () => {
  const full = (skip = 0) => ({
    pageSize: 5,
    state: { cursor: undefined, skip },
    mode: 'full' as const,
    type: 'j',
  });
  const json = (ids: number[]) => jsonItems(JSON.stringify(ids.map((id) => ({ id }))), ids.length);

  test('in a full sync an array that fits goes on the page whole, between plain items, counted as its rows', async () => {
    async function* mixed() {
      yield { id: 0 };
      yield json([1, 2]);
      yield [{ id: 3 }, json([])];
      yield json([4]);
      yield { id: 5 };
    }
    const page = await cutPage(mixed(), full());
    expect(page.items).toEqual([{ id: 0 }, { id: 3 }]);
    expect(page.raw).toEqual([
      { at: 1, text: '[{"id":1},{"id":2}]', count: 2 },
      { at: 2, text: '[{"id":4}]', count: 1 },
    ]);
    // Five rows on the page: the next row ends it, and the next page skips nothing twice.
    expect(page.next).toEqual({ cursor: undefined, skip: 5 });
  });

  test('an array that does not fit in the room left is parsed and cut like a batch', async () => {
    async function* big(state: PageState) {
      if (state.cursor === undefined) {
        yield { id: 0 };
        yield json([1, 2, 3, 4, 5, 6]);
        yield resume(7);
      }
      yield json([7]);
    }
    const page = await cutPage(big({ cursor: undefined, skip: 0 }), full());
    expect(page.raw).toEqual([]);
    expect(page.items).toEqual([0, 1, 2, 3, 4].map((id) => ({ id })));
    expect(page.next).toEqual({ cursor: undefined, skip: 5 });
    const second = await cutPage(big({ cursor: undefined, skip: 5 }), full(5));
    // The restarted handler's first five rows were sent: skipped, then the rest as items.
    expect(second.items).toEqual([{ id: 5 }, { id: 6 }]);
    expect(second.raw).toEqual([{ at: 2, text: '[{"id":7}]', count: 1 }]);
    expect(second.replayed).toBe(5);
    expect(second.next).toBeNull();
  });

  test('rows still to skip after a restart: the array is parsed, its first rows dropped', async () => {
    async function* one() {
      yield json([0, 1, 2]);
    }
    const page = await cutPage(one(), full(2));
    expect(page.items).toEqual([{ id: 2 }]);
    expect(page.raw).toEqual([]);
    expect(page.replayed).toBe(2);
  });

  test('in a delta sync the array is parsed: its items get SET like any item', async () => {
    async function* changes() {
      yield json([1, 2]);
      yield remove(3);
    }
    const page = await cutPage(changes(), { ...full(), mode: 'delta' });
    expect(page.raw).toEqual([]);
    expect(page.items).toEqual([
      { id: 1, __syncAction: 'SET' },
      { id: 2, __syncAction: 'SET' },
      { id: 3, __syncAction: 'REMOVE' },
    ]);
  });

  test('a full page ends before the next array without parsing it', async () => {
    async function* pages() {
      yield json([0, 1, 2, 3, 4]);
      yield jsonItems('[not parsed]', 3);
    }
    const page = await cutPage(pages(), full());
    expect(page.raw.map((r) => r.count)).toEqual([5]);
    expect(page.next).toEqual({ cursor: undefined, skip: 5 });
  });

  test('a bad marker is refused, naming the type', async () => {
    const cut = (marker: unknown, skip = 0) =>
      cutPage(
        (async function* () {
          yield marker;
        })(),
        full(skip),
      );
    await expect(cut(jsonItems('{"id":1}', 1))).rejects.toThrow(
      'type "j" yielded jsonItems() whose text is not a JSON array',
    );
    await expect(cut(jsonItems('  ', 0))).rejects.toThrow('whose text is not a JSON array');
    await expect(cut(jsonItems('[{"id":1}]', 1.5))).rejects.toThrow(
      'type "j" yielded jsonItems() whose count is not a non-negative integer',
    );
    await expect(cut(jsonItems('[]', -1))).rejects.toThrow('count is not a non-negative integer');
    // Parsed (a row to skip): a count that does not match, or text that is not JSON.
    await expect(cut(jsonItems('[{"id":1}]', 2), 1)).rejects.toThrow(
      'type "j" yielded jsonItems() whose text is not a JSON array of 2 items',
    );
    await expect(cut(jsonItems('[{"id":1},]', 2), 1)).rejects.toThrow('not a JSON array of 2 items');
    await expect(cut(jsonItems(' \n[{"id":1}]\t', 1))).resolves.toMatchObject({ next: null });
  });
});
