// A sync makes each row's collections hold exactly what the app sent. Its commands come in an
// order the workspace makes as few runs of (each field's removals, then its additions), and the
// order must not change what the collections end up holding.
import { expect, it } from 'vitest';
import { itemsKey, replaceItemsCommands } from './collection-items.js';

const current = new Map([
  [itemsKey('a', 'x/tags'), new Set(['t1', 't2'])],
  [itemsKey('b', 'x/tags'), new Set(['t3'])],
  [itemsKey('a', 'x/people'), new Set(['p1'])],
]);

it('sends every removal before any addition, each field together, in row order, and only what differs', () => {
  const commands = replaceItemsCommands('x/item', current, [
    { id: 'a', field: 'x/tags', items: ['t2', 't4'] },
    { id: 'a', field: 'x/people', items: ['p2'] },
    { id: 'b', field: 'x/tags', items: ['t3', 't1'] },
    { id: 'c', field: 'x/people', items: ['p1'] },
    { id: 'c', field: 'x/tags', items: [] },
  ]);
  const brief = commands.map((c) => {
    const args = c.args as { field: string; entity: { 'svc/id': string }; items: { 'svc/id': string }[] };
    return `${String(c.command).slice(11, 14)} ${args.field} ${args.entity['svc/id']} ${args.items.map((i) => i['svc/id']).join(',')}`;
  });
  expect(brief).toEqual([
    'rem x/tags a t1',
    'rem x/people a p1',
    'add x/tags a t4',
    'add x/tags b t1',
    'add x/people a p2',
    'add x/people c p1',
  ]);
});
