import { type FieldType, fieldType } from '@weft/core/protocol';
import { z } from 'zod';
import { flag, orLeftOut, text } from './coerce.js';
import { warn } from './warning.js';

// A field of a form the service draws: an account field (descriptor) or a filter (config). Apps
// in production leave out its label key or `description`, or name a type the service does not
// know; the service still draws the form.

/** The field's type; one the service does not know (or none) is drawn as a text input. */
export function formFieldType(t: unknown): FieldType {
  const known = fieldType.safeParse(t);
  if (known.success) return known.data;
  warn(
    'type',
    t === undefined ? 'missing: read as text' : `unknown field type ${JSON.stringify(t)}: read as text`,
  );
  return 'text';
}

/** The keys account fields and filters share, each read as leniently as the service does. */
export const formFieldKeys = {
  id: text('id').pipe(z.string().min(1)),
  name: z.string().optional(),
  title: z.string().optional(),
  type: z.unknown().optional(),
  description: z.string().optional(),
  optional: flag('optional').optional(),
  editorMode: orLeftOut('editorMode', z.enum(['json', 'sql'])),
  datalist_requires: z.array(text('datalist_requires')).optional(),
};

/** The label: `name`, else `title`, else the id, with a warning for the key the spec wants. */
export function label(
  field: { id: string; name?: string | undefined; title?: string | undefined },
  key: 'name' | 'title',
): string {
  const own = key === 'name' ? field.name : field.title;
  if (own) return own;
  const other = key === 'name' ? field.title : field.name;
  if (other) {
    warn(key, `missing: the label is taken from \`${key === 'name' ? 'title' : 'name'}\``);
    return other;
  }
  warn(key, 'missing: the field id is the label');
  return field.id;
}
