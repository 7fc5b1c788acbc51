import { describe, expect, test } from 'vitest';
import { createWorkspaceClient } from '../client.js';
import { and, count, eq, gte, isIn, many, min, start } from '../index.js';

// Compilation only: no request is sent by toQuery().
const client = createWorkspaceClient({ url: 'http://127.0.0.1:1', token: 'compile-only' });

describe('query builder', () => {
  test('compiles the example of the docs; values go to params only', () => {
    const { query, params } = client
      .query('Tracker/Task')
      .select('Name', { Project: ['Name'] })
      .where(eq('State.enum/name', 'Done'))
      .orderBy('svc/creation-date', 'desc')
      .limit(50)
      .toQuery();
    expect(query).toEqual({
      'q/from': 'Tracker/Task',
      'q/select': ['svc/id', 'Tracker/Name', { 'Tracker/Project': ['Tracker/Name'] }],
      'q/where': ['=', ['Tracker/State', 'enum/name'], '$p0'],
      'q/order-by': [[['svc/creation-date'], 'q/desc']],
      'q/limit': 50,
    });
    expect(params).toEqual({ $p0: 'Done' });
    expect(JSON.stringify(query)).not.toContain('Done');
  });

  test('several filters join with q/and; q/in, q/start, collections and aggregates', () => {
    const { query, params } = client
      .query('Tracker/Project')
      .select({ Tasks: many('Name') }, { n: count('Tasks'), first: min('Tasks', 'Due') })
      .where(isIn('Name', ['a', 'b']))
      .where(and(gte(start('Due'), '2026-01-01'), eq('svc/id', 'x')))
      .limit('all')
      .offset(20)
      .toQuery();
    expect(query['q/select']).toEqual([
      'svc/id',
      { 'Tracker/Tasks': { 'q/select': ['Tracker/Name'], 'q/limit': 'q/no-limit' } },
      { n: ['q/count', ['Tracker/Tasks']], first: ['q/min', ['Tracker/Tasks', 'Tracker/Due']] },
    ]);
    expect(query['q/where']).toEqual([
      'q/and',
      ['q/in', ['Tracker/Name'], '$p0'],
      ['q/and', ['>=', ['q/start', ['Tracker/Due']], '$p1'], ['=', ['svc/id'], '$p2']],
    ]);
    expect(params).toEqual({ $p0: ['a', 'b'], $p1: '2026-01-01', $p2: 'x' });
    expect(query['q/limit']).toBe('q/no-limit');
    expect(query['q/offset']).toBe(20);
  });

  test('builders are immutable', () => {
    const base = client.query('Tracker/Task').select('Name');
    base.where(eq('Name', 'x')).limit(3);
    expect(base.toQuery().query).toEqual({
      'q/from': 'Tracker/Task',
      'q/select': ['svc/id', 'Tracker/Name'],
    });
  });
});
