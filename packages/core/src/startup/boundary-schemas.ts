import { z } from 'zod';
import type { InputField, InputFields } from '../define/inputs.js';

// Numbers and booleans sometimes arrive as strings from form inputs; accept the unambiguous ones.
const numberInput = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v),
  z.number(),
);
const boolInput = z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());
const dateRangeInput = z.looseObject({ _min: z.string().optional(), _max: z.string().optional() });
const stringList = z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string()));

function valueSchema(field: InputField<unknown>): z.ZodType | undefined {
  switch (field.type) {
    case 'link':
    case 'oauth':
      return undefined;
    case 'number':
      return numberInput;
    case 'bool':
      return boolInput;
    case 'date':
      return dateRangeInput;
    case 'multidropdown':
      return stringList;
    default:
      return z.string();
  }
}

/**
 * The zod schema of an account or filter object built from its form fields. Loose: the service
 * adds system keys (ids, `app`, `auth`, `owner`, ...). Optional fields accept null as absent.
 */
export function inputObjectSchema(fields: InputFields): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {};
  for (const [id, field] of Object.entries(fields)) {
    const schema = valueSchema(field);
    if (!schema) continue;
    shape[id] = field.optional
      ? z.preprocess((v) => (v === null || v === '' ? undefined : v), schema.optional())
      : schema;
  }
  return z.looseObject(shape) as unknown as z.ZodType<Record<string, unknown>>;
}

/** What an OAuth account must hold to be used. */
export const oauthAccountSchema = z.looseObject({ access_token: z.string().min(1) });
