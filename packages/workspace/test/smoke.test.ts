import { expect, it } from 'vitest';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

describeEachDatabase('smoke', (target) => {
  const h = useWorkspace(target);
  it('creates a type, an entity, and queries it', async () => {
    await h.run(
      'schema.type/create',
      typeArgs('t/task', [
        ['t/n', 'svc/int'],
        ['t/price', 'svc/decimal'],
        ['t/due', 'svc/date'],
        ['t/range', 'svc/date-range'],
      ]),
    );
    const e = await h.run('svc.entity/create', {
      type: 't/task',
      entity: {
        't/name': 'a',
        't/n': 3,
        't/price': '1.50',
        't/due': '2026-01-02',
        't/range': { start: '2026-01-01', end: '2026-02-01' },
      },
    });
    const q = await h.run('svc.entity/query', {
      query: {
        'q/from': 't/task',
        'q/select': ['svc/id', 't/name', 't/price'],
        'q/where': ['>=', ['t/n'], '$n'],
      },
      params: { $n: 2 },
    });
    expect(q).toHaveLength(1);
  });
});
