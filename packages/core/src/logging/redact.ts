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
  const extra: readonly string[] = Array.isArray(extraKeys) ? extraKeys : [...extraKeys];
  const found: string[] = [];
  collectInto(source, 0, extra, found);
  return found.length > 1 ? [...new Set(found)] : found;
}

// A plain recursive function (no closure, no entry arrays): this runs on every request.
function collectInto(value: unknown, depth: number, extra: readonly string[], found: string[]): void {
  // Raw bodies (a webhook's bytes) hold no named fields: walking their indices would cost
  // one entry per byte.
  if (depth > 4 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const inner = record[key];
    if (typeof inner === 'string') {
      if (inner.length >= 4 && (extra.includes(key) || isSecretKey(key))) found.push(inner);
    } else if (typeof inner === 'object') {
      collectInto(inner, depth + 1, extra, found);
    }
  }
}

/**
 * Every form in which a secret may come back: as given, URL-encoded (percent and form style),
 * inside any base64 or base64url text (an echoed `Authorization: Basic base64(client:secret)`),
 * and, for a secret URL or path, the parts that act as its credential (see {@link secretUrlParts}).
 */
export function secretVariants(secret: string): string[] {
  const out = new Set<string>();
  for (const part of [secret, ...secretUrlParts(secret)]) {
    if (part.length === 0) continue;
    out.add(part);
    const percent = safeEncode(part);
    if (percent) {
      out.add(percent);
      out.add(percent.replaceAll('%20', '+'));
      out.add(percent.toLowerCase().replace(/%[0-9a-f]{2}/g, (m) => m.toUpperCase()));
    }
    if (part.length >= 6) for (const fragment of base64Fragments(part)) out.add(fragment);
  }
  return [...out].filter((v) => v.length >= 4);
}

function safeEncode(text: string): string | undefined {
  try {
    const encoded = encodeURIComponent(text);
    return encoded === text ? undefined : encoded;
  } catch {
    return undefined; // a lone surrogate cannot be percent-encoded, so it cannot come back that way
  }
}

/**
 * The characters of base64(anything + secret + anything) that depend on the secret alone, for
 * each of the three byte alignments, in the standard and URL-safe alphabets. Any base64 text
 * that contains the encoded secret contains one of these.
 */
function base64Fragments(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const fragments: string[] = [];
  for (let shift = 0; shift < 3; shift += 1) {
    const total = shift + bytes.length;
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    // Characters of the group holding prefix bytes depend on unknown bytes; so do the trailing
    // characters of an incomplete last group beyond the bits the secret fixes.
    const start = shift === 0 ? 0 : 4;
    const end = Math.floor(total / 3) * 4 + [0, 1, 2][total % 3]!;
    const fragment = encoded.slice(start, end);
    if (fragment.length >= 6) {
      fragments.push(fragment);
      fragments.push(fragment.replaceAll('+', '-').replaceAll('/', '_'));
    }
  }
  return fragments;
}

/**
 * The parts of a secret URL (or URL path) that are credentials on their own: the path, the
 * query, the query values, the last path segment, and every segment long enough to be a key or
 * an id (8+ characters, or 6+ with a digit). Short words such as `hooks` or `api` stay readable.
 */
export function secretUrlParts(secret: string): string[] {
  let path: string;
  let search = '';
  if (/^https?:\/\//i.test(secret)) {
    try {
      const url = new URL(secret);
      path = url.pathname;
      search = url.search;
    } catch {
      return [];
    }
  } else if (secret.startsWith('/') && !/\s/.test(secret)) {
    const [p, q = ''] = secret.split('?', 2) as [string, string?];
    path = p;
    search = q ? `?${q}` : '';
  } else {
    return [];
  }
  const parts: string[] = [];
  if (path.length > 1) parts.push(path);
  if (search.length > 1) {
    parts.push(search, search.slice(1));
    for (const value of new URLSearchParams(search).values()) if (value.length >= 4) parts.push(value);
  }
  const segments = path.split('/').filter(Boolean);
  segments.forEach((segment, index) => {
    const last = index === segments.length - 1;
    if ((last && segment.length >= 4) || segment.length >= 8 || (segment.length >= 6 && /\d/.test(segment)))
      parts.push(segment);
  });
  return parts;
}

/**
 * A reusable redaction for one set of secrets, their variants computed once. `redact` builds
 * one per call; code that redacts many strings (a request's logger) keeps one.
 */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const variants = [...new Set(secrets.flatMap((s) => (s.length > 0 ? secretVariants(s) : [])))].sort(
    // Longest first, so a secret that contains another is replaced whole.
    (a, b) => b.length - a.length,
  );
  if (variants.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const variant of variants) if (out.includes(variant)) out = out.split(variant).join(REDACTED);
    return out;
  };
}

/** Replaces every occurrence of each secret, in any form {@link secretVariants} lists, in `text`. */
export function redact(text: string, secrets: readonly string[]): string {
  return redactor(secrets)(text);
}
