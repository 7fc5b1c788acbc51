import type { FieldLookup } from '@weft/namespace';
import type { Catalog } from './catalog.js';

/** The catalog as the namespace codec asks it: which fields hold data, which hold references. */
export function catalogLookup(catalog: Catalog): FieldLookup {
  return (typeName, fieldName) => {
    const field = catalog.findType(typeName)?.byName.get(fieldName);
    if (!field) return undefined;
    if (field.kind === 'primitive') return { kind: 'value' };
    return {
      kind: 'ref',
      target: field.targetTypeId ? catalog.typeById(field.targetTypeId).name : undefined,
    };
  };
}
