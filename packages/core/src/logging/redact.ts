/** Placeholder that replaces every secret in text leaving the app. */
export const REDACTED = '[redacted]';

// Account keys whose values are secret whatever the form says about them.
const SECRET_KEY =
  /(pass(word)?|secret|token|api[-_]?key|private[-_]?key|signature|credential|authorization|cookie)/i;

/** True when a key names a secret (password, token, api key, ...). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/**
 * Collects the secret values of an account or request: values of secret-named keys, and of the
 * keys listed in `extraKeys` (for example the app's password fields). Short values are skipped:
 * replacing "1" everywhere would mangle messages without protecting anything.
 */
export function collectSecrets(source: unknown, extraKeys: Iterable<string> = []): string[] {
  const extra = new Set(extraKeys);
  const found = new Set<string>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 4 || value === null || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (typeof inner === 'string' && inner.length >= 4 && (extra.has(key) || isSecretKey(key))) {
        found.add(inner);
      } else if (typeof inner === 'object') {
        visit(inner, depth + 1);
      }
    }
  };
  visit(source, 0);
  return [...found];
}

/** Replaces every occurrence of each secret in `text`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length > 0 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}
