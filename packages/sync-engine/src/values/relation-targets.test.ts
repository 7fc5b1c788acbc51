import { expect, it } from 'vitest';
import { conversionOf, convertValue } from './convert-value.js';
import { relationTargets } from './relation-targets.js';

// What the host stores and the kit judges by: each looseness the service takes is read and named.
const noted = (read: (note: (c: string) => void) => unknown) => {
  const notes: string[] = [];
  const value = read((c) => notes.push(c));
  return { value, notes };
};

it('reads relation values as ids, naming what it coerced', () => {
  expect(noted((n) => relationTargets(true, ['a', 2], n))).toEqual({ value: ['a', '2'], notes: [] });
  expect(noted((n) => relationTargets(true, '["a","b"]', n))).toEqual({
    value: ['a', 'b'],
    notes: ['many-to-many value sent as a JSON string'],
  });
  expect(noted((n) => relationTargets(true, 'a', n))).toEqual({
    value: ['a'],
    notes: ['many-to-many value sent as a single id'],
  });
  expect(noted((n) => relationTargets(false, ['a', 'b'], n))).toEqual({
    value: ['a'],
    notes: ['to-one value sent as an array (first id kept)'],
  });
  expect(noted((n) => relationTargets(false, { id: 'x' }, n))).toEqual({ value: ['x'], notes: [] });
  expect(noted((n) => relationTargets(true, [], n))).toEqual({ value: [], notes: [] });
});

it('reads primitive values as the service does, naming what it coerced', () => {
  const cases: Array<[Parameters<typeof conversionOf>[0], unknown, unknown, string[]]> = [
    [{ type: 'text' }, 'x', 'x', []],
    [{ type: 'id' }, 42, '42', []],
    [{ type: 'id' }, { id: 42 }, undefined, []],
    [{ type: 'text' }, 12, '12', ['number or boolean sent for text']],
    [{ type: 'text' }, { a: 1 }, '{"a":1}', ['object sent for text']],
    [{ type: 'number', subType: 'integer' }, '08', 8, ['number sent as text']],
    [{ type: 'number', subType: 'integer' }, 1.5, 2, ['fraction sent for a whole number (rounded)']],
    [{ type: 'number' }, 'lots', undefined, []],
    [{ type: 'date', subType: 'day' }, '2024-3-5', '2024-03-05', ['date without zero padding']],
    [{ type: 'date' }, 0, '1970-01-01T00:00:00.000Z', ['date sent as a number']],
    [{ type: 'date' }, 'Mar 5, 2024 UTC', '2024-03-05T00:00:00.000Z', ['date not in ISO 8601 form']],
    [{ type: 'date' }, '2024-03-05T10:00:00+02:00', '2024-03-05T08:00:00.000Z', []],
    [
      { type: 'text', subType: 'date-range' },
      { start: '2024-03-05', end: '2024-03-06' },
      { start: '2024-03-05', end: '2024-03-06' },
      ['date range sent as an object, not the JSON string the service takes'],
    ],
    [{ type: 'text', subType: 'boolean' }, 'yes', true, []],
    [{ type: 'text', subType: 'boolean' }, 1, true, ['boolean sent as a number']],
  ];
  for (const [field, raw, value, notes] of cases) {
    const conversion = conversionOf(field);
    if (conversion === 'rich' || conversion === 'enum' || conversion === 'files')
      throw new Error('not primitive');
    expect(
      noted((n) => convertValue(conversion, raw, n as never)),
      JSON.stringify([field, raw]),
    ).toEqual({
      value,
      notes,
    });
  }
  expect(conversionOf({ type: 'text', subType: 'md' })).toBe('rich');
  expect(conversionOf({ type: 'text', subType: 'workflow' })).toBe('enum');
  expect(conversionOf({ type: 'array[text]', subType: 'files' })).toBe('files');
});
