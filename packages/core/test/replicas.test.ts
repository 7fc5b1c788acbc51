import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { auth, createServer, defineApp, field, resume, silentLogger } from '../src/index.js';
import { descriptorBase } from './fixtures/minimal.js';

const TOTAL = 10_001;

// An upstream that serves 300 items per call, resumable from an offset.
function bigApp() {
  return defineApp({
    id: 'big',
    name: 'Big',
    ...descriptorBase,
    authentication: [auth.none()],
    pageSize: 1_000,
    sync: {
      types: {
        row: {
          name: 'Row',
          fields: { id: field.id(), name: field.text(), n: field.integer() },
          async *data({ cursor }) {
            let offset = typeof cursor === 'number' ? cursor : 0;
            while (offset < TOTAL) {
              const end = Math.min(offset + 300, TOTAL);
              for (let n = offset; n < end; n += 1) yield { id: `r${n}`, name: `Row ${n}`, n };
              offset = end;
              yield resume(offset);
            }
          },
        },
      },
    },
  });
}

describe('stateless paging', () => {
  test('10,001 items at page size 1,000 are 11 pages, each served by a fresh router, identical to one pass', async () => {
    const pages: unknown[][] = [];
    let pagination: unknown = null;
    for (;;) {
      // A new router per page: as if each page hit another replica.
      const replica = createServer(bigApp(), { logger: silentLogger, pageKeys: ['replicas-share-this-key'] });
      const res = await request(replica)
        .post('/api/v1/synchronizer/data')
        .send({
          requestedType: 'row',
          types: ['row'],
          account: {},
          filter: {},
          pagination,
          lastSynchronizedAt: null,
        });
      expect(res.status).toBe(200);
      pages.push(res.body.items);
      if (!res.body.pagination.hasNext) break;
      pagination = JSON.parse(JSON.stringify(res.body.pagination.nextPageConfig));
    }
    expect(pages).toHaveLength(11);
    expect(pages.slice(0, 10).every((p) => p.length === 1_000)).toBe(true);
    expect(pages[10]).toHaveLength(1);

    const singlePass: unknown[] = [];
    for await (const item of bigApp().sync!.types.row.data({} as never)) {
      if ((item as { id?: unknown }).id !== undefined) singlePass.push(item);
    }
    expect(pages.flat()).toEqual(singlePass);
  });
});
