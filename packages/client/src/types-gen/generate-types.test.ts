import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { trackerSchema } from '../../test/fixtures/tracker-schema.js';
import { generateTypes } from './generate-types.js';

describe('generateTypes', () => {
  test('the committed fixture types are exactly what the generator writes (the type tests use them)', async () => {
    const committed = await readFile(
      new URL('../../test/fixtures/tracker-types.ts', import.meta.url),
      'utf8',
    );
    const generated = generateTypes(trackerSchema, {
      interfaceName: 'Tracker',
      source: 'test/fixtures/tracker-schema.ts',
    });
    // The repo's formatter may re-wrap long lines of the committed copy: compare without layout.
    const layoutFree = (source: string) => source.replace(/\s+/g, '').replace(/;}/g, '}');
    expect(layoutFree(committed)).toBe(layoutFree(generated));
  });

  test('primitive types listed in the schema (svc/primitive? true) are not entity types', () => {
    const withPrimitives = {
      ...trackerSchema,
      'svc/types': [
        ...trackerSchema['svc/types'],
        { 'svc/name': 'svc/int', 'svc/meta': { 'svc/primitive?': true }, 'svc/fields': [] },
      ],
    };
    expect(generateTypes(withPrimitives)).toBe(generateTypes(trackerSchema));
  });

  test('kinds, targets, and values per field type', () => {
    const out = generateTypes(trackerSchema);
    expect(out).toContain('export interface Workspace {');
    expect(out).toContain(
      "'Tracker/Project': { kind: 'entity'; value: { 'svc/id': string } | null; target: 'Tracker/Project' };",
    );
    expect(out).toContain(
      "'Tracker/Tasks': { kind: 'collection'; value: { 'svc/id': string }[]; target: 'Tracker/Task' };",
    );
    expect(out).toContain(
      "'Tracker/Budget': { kind: 'primitive'; value: string | null; input: number | string };",
    );
    expect(out).toContain("'Tracker/State_Tracker/Task': {");
    expect(() => generateTypes(trackerSchema, { interfaceName: 'not valid' })).toThrow(
      /invalid interface name/,
    );
  });
});
