/**
 * Namespaces the workspace's own types, fields and meta use, made or not yet: no app gets one
 * (lower case, as app namespaces are).
 */
export const RESERVED_NAMESPACES: ReadonlySet<string> = new Set([
  'svc',
  // the real service's word for svc (WEFT_NAMESPACE=fibery): taken, so the two never meet
  'fibery',
  'ui',
  'q',
  'enum',
  'user',
  'comment',
  'comments',
  'files',
  'assignments',
  'workflow',
  'avatar',
  'collaboration~documents',
]);
