import { describe, expect, test } from 'vitest';
import { AppDefinitionError, auth, createRouter, defineApp, field } from '../src/index.js';
import { descriptorBase } from './fixtures/minimal.js';

function problemsOf(fields: Record<string, unknown>): string[] {
  try {
    createRouter(
      defineApp({
        id: 'opts',
        name: 'Opts',
        ...descriptorBase,
        authentication: [auth.none()],
        sync: {
          types: {
            t: { name: 'T', fields: { id: field.id(), name: field.text(), ...fields }, async *data() {} },
          },
        } as never,
      }),
    );
  } catch (error) {
    if (error instanceof AppDefinitionError) return error.problems.map((p) => `${p.path}: ${p.message}`);
    throw error;
  }
  return [];
}

describe('start-up check of select and workflow options', () => {
  test('a workflow needs exactly one default and one final option', () => {
    expect(problemsOf({ state: field.workflow({ options: [{ name: 'Open' }, { name: 'Done' }] }) })).toEqual([
      'sync.types.t.fields.state.options: a workflow needs exactly one `default` option, found 0',
      'sync.types.t.fields.state.options: a workflow needs exactly one `final` option, found 0',
    ]);
    expect(
      problemsOf({
        state: field.workflow({
          options: [
            { name: 'Open', default: true },
            { name: 'New', default: true },
            { name: 'Done', final: true },
            { name: 'Gone', final: true },
          ],
        }),
      }),
    ).toEqual([
      'sync.types.t.fields.state.options: a workflow needs exactly one `default` option, found 2',
      'sync.types.t.fields.state.options: a workflow needs exactly one `final` option, found 2',
    ]);
  });

  test('option names are unique, single selects have one default at most, final is for workflows', () => {
    expect(
      problemsOf({
        size: field.singleSelect({
          options: [{ name: 'S', default: true }, { name: 'S' }, { name: 'L', default: true, final: true }],
        }),
        tags: field.multiSelect({
          options: [
            { name: 'a', default: true },
            { name: 'b', default: true },
          ],
        }),
        blank: field.singleSelect({ options: [{ name: '' }] }),
      }),
    ).toEqual([
      'sync.types.t.fields.blank.spec.options[0].name: must be a non-empty string',
      'sync.types.t.fields.size.options: option "S" is listed twice',
      'sync.types.t.fields.size.options: `final` belongs to workflow options only',
      'sync.types.t.fields.size.options: a single select has at most one `default` option, found 2',
    ]);
  });

  test('valid options, options left out, and native user relations pass', () => {
    expect(
      problemsOf({
        state: field.workflow({
          options: [{ name: 'Open', default: true }, { name: 'Doing' }, { name: 'Done', final: true }],
        }),
        inferred: field.workflow(),
        owner: field.user({ targetName: 'Owned' }),
      }),
    ).toEqual([]);
  });

  test('options on a field that is not a select are refused', () => {
    expect(problemsOf({ note: { spec: { type: 'text', options: [{ name: 'x' }] } } })).toEqual([
      'sync.types.t.fields.note.options: only single-select, multi-select and workflow fields have options',
    ]);
  });
});

describe('start-up check of account-dependent definitions', () => {
  const base = { id: 'dyn', name: 'Dyn', ...descriptorBase, authentication: [auth.none()] };
  const problems = (sync: unknown): string[] => {
    try {
      createRouter({ ...base, sync } as never);
    } catch (error) {
      if (error instanceof AppDefinitionError) return error.problems.map((p) => `${p.path}: ${p.message}`);
      throw error;
    }
    return [];
  };

  test('no static type is fine only with accountTypes', () => {
    expect(problems({ types: {} })).toEqual(['sync.types: defines no type (and there is no `accountTypes`)']);
    expect(problems({ types: {}, accountTypes: async () => ({}) })).toEqual([]);
  });

  test('a datalist handler without a static filter is fine only with accountFilters', () => {
    const datalists = { table: async () => [] };
    expect(problems({ types: {}, accountTypes: async () => ({}), datalists })).toEqual([
      'sync.datalists.table: has no matching filter with `datalist: true`',
    ]);
    expect(
      problems({ types: {}, accountTypes: async () => ({}), accountFilters: () => ({}), datalists }),
    ).toEqual([]);
  });

  test('accountTypes, accountFilters and accountCacheSeconds are checked for shape', () => {
    expect(
      problems({ types: {}, accountTypes: 'tables', accountFilters: 1, accountCacheSeconds: -1 }).sort(),
    ).toEqual([
      'sync.accountCacheSeconds: Too small: expected number to be >=0',
      'sync.accountFilters: must be a function',
      'sync.accountTypes: must be a function',
      'sync.types: defines no type (and there is no `accountTypes`)',
    ]);
  });
});
