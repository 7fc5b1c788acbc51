import type { DescriptorInfo } from './descriptor.js';

/** The value every field of an invalid account gets. */
export const INVALID_VALUE = 'weft-conformance-invalid';

/** Field types that show something but carry no value. */
const NO_VALUE_TYPES = new Set(['link', 'oauth']);

/** The fields of an authentication that carry a value, and the required ones among them. */
export function declaredFields(
  info: DescriptorInfo,
  authenticationId: string,
): { declared: Record<string, unknown>[]; required: Record<string, unknown>[] } {
  const auth = info.authentications.find((a) => a.id === authenticationId);
  const declared = (auth?.fields ?? []).filter((f) => !NO_VALUE_TYPES.has(String(f.type)));
  return { declared, required: declared.filter((f) => f.optional !== true) };
}
