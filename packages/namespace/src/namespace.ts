import { z } from 'zod';

// The one place that decides which word stands for the service's own namespace. The spec writes
// it `svc` (`svc/id`, `svc.entity/query`); the real service (Fibery) writes `fibery`. Everything
// inside weft speaks `svc`; the word only changes at the boundaries (see codec.ts).

export const NAMESPACES = ['svc', 'fibery'] as const;
export type Namespace = (typeof NAMESPACES)[number];

/** The spec's spelling, and what weft speaks inside. */
export const DEFAULT_NAMESPACE: Namespace = 'svc';

export const NamespaceSchema = z.enum(NAMESPACES);

/** `value` as a namespace (unset or empty: the default); throws an Error naming `source` otherwise. */
export function parseNamespace(value: unknown, source = 'namespace'): Namespace {
  if (value === undefined || value === '') return DEFAULT_NAMESPACE;
  const parsed = NamespaceSchema.safeParse(value);
  if (!parsed.success) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
    throw new Error(`${source} must be one of ${NAMESPACES.join(', ')}, got ${shown}`);
  }
  return parsed.data;
}

/** WEFT_NAMESPACE from the environment (default svc). */
export function namespaceFromEnv(env: NodeJS.ProcessEnv): Namespace {
  return parseNamespace(env.WEFT_NAMESPACE, 'WEFT_NAMESPACE');
}
