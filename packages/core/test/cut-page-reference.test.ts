import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { MARKER } from '../src/define/markers.js';
import { remove, resume } from '../src/index.js';
import { BadItemError, type CutPageOptions, type Page, cutPage } from '../src/paging/cut-page.js';
import { SYNC_ACTION_FIELD } from '../src/protocol/index.js';

// cutPage drains the handler with one `then` callback per row and a fast path for plain items;
// this reference is the rule written as plainly as possible (one `await` per yield, every row
// through one function). For any stream, options and failure, both must cut the same page,
// throw the same error, and pull the handler exactly as far.

type Row = Record<PropertyKey, unknown>;

async function referenceCutPage(stream: AsyncIterable<unknown>, options: CutPageOptions): Promise<Page> {
  const items: Record<string, unknown>[] = [];
  const delta = options.mode === 'delta';
  let cursor = options.state.cursor;
  let toSkip = options.state.skip;
  let skipped = 0;
  let rowsAtCursor = 0;
  const iterator = stream[Symbol.asyncIterator]();
  try {
    for (;;) {
      const step = await iterator.next();
      if (step.done) return { items, raw: [], next: null, replayed: skipped };
      const rows: unknown[] = Array.isArray(step.value) ? step.value : [step.value];
      for (const value of rows) {
        if (value === null || typeof value !== 'object') {
          throw new BadItemError(
            `type "${options.type}" yielded ${value === null ? 'null' : typeof value}, not an item object`,
          );
        }
        const row = value as Row;
        const marker = row[MARKER];
        if (marker === 'resume') {
          cursor = row.state as typeof cursor;
          rowsAtCursor = skipped + items.length;
          if (items.length === options.pageSize)
            return { items, raw: [], next: { cursor, skip: 0 }, replayed: skipped };
          continue;
        }
        if (marker === 'remove' && !delta) continue;
        if (items.length === options.pageSize) {
          return {
            items,
            raw: [],
            next: { cursor, skip: skipped + items.length - rowsAtCursor },
            replayed: skipped,
          };
        }
        if (toSkip > 0) {
          toSkip -= 1;
          skipped += 1;
          continue;
        }
        if (marker === 'remove') {
          items.push({ id: row.id, [SYNC_ACTION_FIELD]: 'REMOVE' });
          continue;
        }
        if (row.id === undefined || row.id === null) {
          throw new BadItemError(
            `type "${options.type}" yielded an item without \`id\` (item ${items.length + 1} of this page)`,
          );
        }
        items.push(
          delta && row[SYNC_ACTION_FIELD] === undefined ? { ...row, [SYNC_ACTION_FIELD]: 'SET' } : row,
        );
      }
    }
  } finally {
    await iterator.return?.();
  }
}

const id = fc.oneof(fc.integer({ min: 0, max: 50 }), fc.string({ maxLength: 3 }));
const item = fc.oneof(
  fc.record({ id, n: fc.integer() }),
  fc.record({ id, [SYNC_ACTION_FIELD]: fc.constant('SET') }),
);
const row = fc.oneof(
  { weight: 6, arbitrary: item },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 20 }).map((n) => resume(n)) },
  { weight: 2, arbitrary: id.map((i) => remove(i)) },
  // Rare mistakes an app makes: no id, a null id, a non-object.
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>({ name: 'no id' }, { id: null }, null, 42, 'text', [1]),
  },
);
const yielded = fc.oneof(
  { weight: 4, arbitrary: row },
  { weight: 1, arbitrary: fc.array(row, { maxLength: 6 }) },
);

const scenario = fc.record({
  yields: fc.array(yielded, { maxLength: 30 }),
  /** The handler throws when it is resumed after this many yields (never if beyond the end). */
  throwAfter: fc.integer({ min: 0, max: 40 }),
  pageSize: fc.integer({ min: 1, max: 6 }),
  skip: fc.integer({ min: 0, max: 8 }),
  mode: fc.constantFrom('full' as const, 'delta' as const),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** Runs one cutter on the scenario's handler: what it answered, and how far the handler ran. */
async function run(cut: typeof cutPage, s: Scenario) {
  const trace = { resumed: 0, closed: false };
  async function* handler() {
    try {
      for (const [i, value] of s.yields.entries()) {
        if (i === s.throwAfter) throw new Error(`upstream failed at ${i}`);
        yield value;
        trace.resumed += 1;
      }
    } finally {
      trace.closed = true;
    }
  }
  const options: CutPageOptions = {
    pageSize: s.pageSize,
    state: { cursor: 'start', skip: s.skip },
    mode: s.mode,
    type: 't',
  };
  try {
    const page = await cut(handler(), options);
    return { page: structuredClone(page), trace };
  } catch (error) {
    return { error: `${(error as Error).constructor.name}: ${(error as Error).message}`, trace };
  }
}

describe('cutPage against a plain reference', () => {
  test('same page, same error, and the handler pulled exactly as far, for any stream', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        expect(await run(cutPage, s)).toEqual(await run(referenceCutPage, s));
      }),
      { numRuns: 600 },
    );
  });

  test('a hand-written async iterator (not a generator) is drained the same way', async () => {
    // Its next() answers plain results, not promises, and it has no return().
    const iterable = (n: number): AsyncIterable<unknown> => ({
      [Symbol.asyncIterator]() {
        let i = 0;
        return {
          next: () =>
            (i < n ? { done: false, value: { id: i++ } } : { done: true, value: undefined }) as never,
        };
      },
    });
    const options: CutPageOptions = {
      pageSize: 3,
      state: { cursor: undefined, skip: 1 },
      mode: 'full',
      type: 't',
    };
    const page = await cutPage(iterable(10), options);
    expect(page).toEqual(await referenceCutPage(iterable(10), options));
    expect(page.items).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  test('an iterator whose next() throws synchronously fails the page with that error', async () => {
    const broken: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          throw new Error('next() broke');
        },
      }),
    };
    const options: CutPageOptions = {
      pageSize: 3,
      state: { cursor: undefined, skip: 0 },
      mode: 'full',
      type: 't',
    };
    await expect(cutPage(broken, options)).rejects.toThrow('next() broke');
  });
});
