// `__syncAction` is required in the schema only from apps that remove rows: without the field the
// service applies no REMOVE; a SET row carrying it without the field only warns.
import { describe, expect, it } from 'vitest';
import { checkSyncActionField, type SchemaInfo } from '../src/checks/schema.js';
import { Context } from '../src/context.js';

const schema: SchemaInfo = new Map([
  ['task', new Map([['id', { id: 'id', type: 'id', subType: undefined }]])],
]);

function verdict(removeTypes: string[], actionTypes: string[]) {
  const ctx = new Context('http://127.0.0.1:9', 1000);
  checkSyncActionField(ctx, schema, new Set(removeTypes), new Set(actionTypes));
  return ctx.checks.find((c) => c.id === 'schema.sync-action');
}

describe('schema.sync-action', () => {
  it('passes an app that never sends __syncAction', () => {
    expect(verdict([], [])?.status).toBe('pass');
  });

  it('only warns when rows carry SET without the field', () => {
    expect(verdict([], ['task'])).toMatchObject({
      status: 'warn',
      reason: expect.stringContaining('rows of task'),
    });
  });

  it('fails when REMOVE rows come without the field', () => {
    expect(verdict(['task'], ['task'])).toMatchObject({
      status: 'fail',
      reason: expect.stringContaining('REMOVE rows were sent for task'),
    });
  });
});
