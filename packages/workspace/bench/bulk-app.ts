// The app the host benches sync: `rows` rows of one type, seven fields of the common kinds, in
// pages of `BATCH` with a resume point after each.
import { auth, defineApp, field, resume } from '@weft/core';

export const BATCH = 1000;

export const row = (i: number) => ({
  id: `r${i}`,
  name: `Row ${i}`,
  count: i,
  amount: (i % 1000) / 10,
  when: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
  flag: i % 2 === 0,
  note: `note ${i % 97}`,
});

export function bulkApp(rows: number, id = 'bulk') {
  return defineApp({
    id,
    name: 'Bulk',
    version: '1.0.0',
    description: 'many rows',
    website: 'http://127.0.0.1/',
    authentication: [auth.none({ name: 'None' })],
    pageSize: BATCH,
    sync: {
      types: {
        item: {
          name: 'Items',
          fields: {
            id: field.id(),
            name: field.title({ name: 'Name' }),
            count: field.integer(),
            amount: field.number(),
            when: field.date(),
            flag: field.bool(),
            note: field.text(),
          },
          async *data({ cursor }) {
            const start = (cursor as { at?: number } | undefined)?.at ?? 0;
            for (let i = start; i < rows; i++) {
              yield row(i);
              if ((i + 1) % BATCH === 0) yield resume({ at: i + 1 });
            }
          },
        },
      },
    },
  });
}
