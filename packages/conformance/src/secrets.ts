import type { DescriptorInfo } from './checks/descriptor.js';

const SECRET_KEY = /pass|secret|token|key|auth|credential|session|cookie/i;

/** Account values that must not appear in the report: password fields and secret-looking keys. */
export function secretValues(account: Record<string, unknown> | undefined, info: DescriptorInfo): unknown[] {
  if (!account) return [];
  const passwordFields = new Set(
    info.authentications.flatMap((a) =>
      a.fields.filter((f) => f.type === 'password').map((f) => String(f.id)),
    ),
  );
  return Object.entries(account)
    .filter(([key]) => passwordFields.has(key) || SECRET_KEY.test(key))
    .map(([, value]) => value);
}
