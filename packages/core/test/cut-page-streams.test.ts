import { describe, expect, test } from 'vitest';
import { jsonItems, remove, resume } from '../src/index.js';
import { MARKER } from '../src/define/markers.js';
import { type Page, cutPage } from '../src/paging/cut-page.js';
import type { PageState } from '../src/paging/page-state.js';

// cutPage has a fast path for one plain item per yield next to the general one; these
// streams mix single items, batches, resume points, removals and `jsonItems()` arrays at random
// so that every switch between the paths is crossed (a JSON array kept whole or parsed because
// it does not fit, rows are being skipped, or the sync is a delta), and check what a sync sees
// end to end.

/** A small seeded generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Yield = unknown;

/** A stream as a list of yields; `resume(i)` restarts it at yield i. */
function makeStream(seed: number): Yield[] {
  const next = random(seed);
  const yields: Yield[] = [];
  let id = 0;
  const row = () => (next() < 0.15 ? remove(`gone-${id++}`) : { id: `i${id++}`, n: id });
  const count = Math.floor(next() * 60);
  for (let k = 0; k < count; k += 1) {
    const pick = next();
    if (pick < 0.55) yields.push(row());
    else if (pick < 0.8) yields.push(Array.from({ length: Math.floor(next() * 8) }, row));
    else if (pick < 0.85) yields.push(resume(yields.length + 1));
    else if (pick < 0.9) {
      // Items already in wire form (plain items only: a removal has no JSON form).
      const rows = Array.from({ length: Math.floor(next() * 6) }, () => ({ id: `i${id++}`, n: id }));
      yields.push(jsonItems(JSON.stringify(rows), rows.length));
    } else {
      // A batch that ends on a resume point, as a handler over a paged upstream yields.
      const batch: unknown[] = Array.from({ length: Math.floor(next() * 5) }, row);
      batch.push(resume(yields.length + 1));
      yields.push(batch);
    }
  }
  return yields;
}

function isJson(value: unknown): value is { text: string; count: number } {
  return (value as Record<PropertyKey, unknown>)[MARKER] === 'json';
}

/** The page's rows as the service receives them: the raw JSON arrays spliced in. */
function withRaw(page: Page): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let from = 0;
  for (const segment of page.raw) {
    out.push(...page.items.slice(from, segment.at), ...JSON.parse(segment.text));
    from = segment.at;
  }
  out.push(...page.items.slice(from));
  return out;
}

function handler(yields: Yield[]) {
  return async function* (state: PageState) {
    for (let i = typeof state.cursor === 'number' ? state.cursor : 0; i < yields.length; i += 1) {
      yield yields[i];
    }
  };
}

/** What the whole sync must send: every row in order, removals only in a delta sync. */
function expected(yields: Yield[], mode: 'full' | 'delta') {
  const rows = yields.flatMap((y) => (Array.isArray(y) ? y : isJson(y) ? JSON.parse(y.text) : [y])) as Record<
    PropertyKey,
    unknown
  >[];
  const out: Record<string, unknown>[] = [];
  for (const r of rows) {
    if ('state' in r) continue;
    if ('id' in r && !('n' in r)) {
      if (mode === 'delta') out.push({ id: r.id, __syncAction: 'REMOVE' });
    } else out.push(mode === 'delta' ? { ...r, __syncAction: 'SET' } : { ...r });
  }
  return out;
}

describe('cutPage over random mixes of single items, batches, resume points and removals', () => {
  test('a sync sends every row once, in order, in full pages; `replayed` is the skip served', async () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const yields = makeStream(seed);
      const make = handler(yields);
      const pageSize = 1 + (seed % 7);
      for (const mode of ['full', 'delta'] as const) {
        const sent: Record<string, unknown>[] = [];
        let state: PageState = { cursor: undefined, skip: 0 };
        for (let pages = 0; ; pages += 1) {
          if (pages > 500) throw new Error(`seed ${seed}: the sync does not end`);
          const page = await cutPage(make(state), { pageSize, state, mode, type: 't' });
          expect(page.replayed, `seed ${seed} ${mode}`).toBe(state.skip);
          const rows = withRaw(page);
          if (mode === 'delta') expect(page.raw, `seed ${seed}: a delta parses JSON items`).toEqual([]);
          sent.push(...rows);
          if (!page.next) break;
          expect(rows.length, `seed ${seed} ${mode}: a page before the last is full`).toBe(pageSize);
          state = JSON.parse(JSON.stringify(page.next));
        }
        expect(sent, `seed ${seed} ${mode}`).toEqual(expected(yields, mode));
      }
    }
  });
});
