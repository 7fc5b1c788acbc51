// A core app serving generated rows at any scale, for the kit's scale benchmark and memory test:
// `group` (rows / 100) and `item` (rows, each related to a group), pages of 1,000, one upstream
// batch of 1,000 rows then `resume()` (unless `resume: false`). A delta sync updates 1 % of the
// items and removes 0.5 %.
import type { Server } from 'node:http';
import { auth, createServer, defineApp, field, remove, resume, silentLogger } from '@weft/core';

const BATCH = 1_000;

export interface ScaleAppOptions {
  /** Rows of `item`; `group` has a hundredth of that (at least one). */
  rows: number;
  /** Yield `resume()` after each upstream batch (default true). */
  resume?: boolean;
}

function item(n: number, groups: number, suffix = '') {
  return {
    id: `item-${n}`,
    name: `Item number ${n}${suffix}`,
    points: n % 13,
    group: `group-${n % groups}`,
  };
}

async function* batches<T>(
  count: number,
  make: (n: number) => T,
  cursor: unknown,
  withResume: boolean,
): AsyncGenerator<T[] | ReturnType<typeof resume>> {
  for (let start = typeof cursor === 'number' ? cursor : 0; start < count; start += BATCH) {
    const rows: T[] = [];
    for (let n = start; n < Math.min(start + BATCH, count); n++) rows.push(make(n));
    yield rows;
    if (withResume) yield resume(start + BATCH);
  }
}

export function scaleApp(options: ScaleAppOptions) {
  const rows = options.rows;
  const groups = Math.max(1, Math.floor(rows / 100));
  const withResume = options.resume !== false;
  return defineApp({
    id: 'scale',
    name: 'Scale',
    version: '1',
    description: 'Generated rows at any scale',
    website: 'https://example.test',
    authentication: [auth.none()],
    sync: {
      types: {
        group: {
          name: 'Group',
          fields: { id: field.id(), name: field.text() },
          async *data({ cursor }) {
            yield* batches(groups, (n) => ({ id: `group-${n}`, name: `Group ${n}` }), cursor, withResume);
          },
        },
        item: {
          name: 'Item',
          delta: true,
          fields: {
            id: field.id(),
            name: field.text(),
            points: field.number(),
            group: field.relation({ to: 'group', cardinality: 'many-to-one', targetName: 'Items' }),
          },
          async *data({ cursor, mode }) {
            if (mode !== 'delta') {
              yield* batches(rows, (n) => item(n, groups), cursor, withResume);
              return;
            }
            // Every 100th item changed, every 200th (offset by 50) was removed.
            const changed = Math.ceil(rows / 100);
            yield* batches(changed, (k) => item(k * 100, groups, ' (changed)'), cursor, withResume);
            for (let n = 50; n < rows; n += 200) yield remove(`item-${n}`);
          },
        },
      },
    },
  });
}

/** Starts the app on 127.0.0.1 (a free port); resolves with its URL and a close function. */
export async function startScaleApp(
  options: ScaleAppOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer(scaleApp(options), { logger: silentLogger }).listen(0, '127.0.0.1', () =>
      resolve(s),
    );
    s.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
