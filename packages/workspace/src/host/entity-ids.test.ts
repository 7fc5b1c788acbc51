// Synced rows keep their ids across weft versions: the id of a row is pinned here, so a change in
// how it is computed (which would duplicate every row on the next sync) fails this test.
import { expect, it } from 'vitest';
import { entityId } from './entity-ids.js';

it('derives the same version 5 uuid from the source, the type and the app id', () => {
  const source = '5f0e0000-0000-4000-8000-000000000001';
  expect(entityId(source, 'book', 'b-17')).toBe('6f1138a6-cc0d-531c-848f-bcbff80ce82f');
  expect(entityId(source, 'book', 'b-18')).not.toBe(entityId(source, 'book', 'b-17'));
  expect(entityId(source, 'author', 'b-17')).not.toBe(entityId(source, 'book', 'b-17'));
  for (let i = 0; i < 200; i++)
    expect(entityId(source, 'book', `r${i}`)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
});
