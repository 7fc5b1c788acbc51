// What a file field of a synced row holds, as the service reads it: a list of file references (a
// single reference for text/file), each an http(s) URL or an `app://resource?...` reference, as a
// string or an object with `url` (and optionally `name`). Each reference gets a key that says
// which file it is across syncs: its `__file-key` query parameter, or else the URL without the
// query parameters that signed, expiring URLs change on every sync.

export const FILE_KEY_PARAM = '__file-key';

export interface FileRef {
  /** identity of the file across syncs (same key = same file, not downloaded again) */
  key: string;
  /** where to download it from: the URL without `__file-key` */
  url: string;
  /** app://resource references are fetched through the app; their query is the `params` */
  resource?: Record<string, string>;
  /** a name the app gave, if any */
  name?: string;
}

// Query parameters of signed, expiring URLs (S3, Google Cloud Storage, Azure, CloudFront and
// common token schemes): they change when the URL is signed again, the file does not.
const VOLATILE =
  /^(x-amz-.*|x-goog-.*|awsaccesskeyid|signature|sig|expires|expiry|policy|key-pair-id|se|st|sp|sv|sr|spr|skoid|sktid|skt|ske|sks|skv|token|access_token|response-.*)$/i;

function parseOne(raw: unknown): FileRef | undefined {
  const value =
    typeof raw === 'string'
      ? { url: raw }
      : raw && typeof raw === 'object' && typeof (raw as { url?: unknown }).url === 'string'
        ? (raw as { url: string; name?: unknown })
        : undefined;
  if (!value) return undefined;
  const text = value.url.trim();
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  const name = typeof value.name === 'string' && value.name !== '' ? value.name : undefined;
  const explicit = url.searchParams.get(FILE_KEY_PARAM);
  url.searchParams.delete(FILE_KEY_PARAM);
  if (url.protocol === 'app:') {
    if (url.hostname !== 'resource') return undefined;
    const params = Object.fromEntries(url.searchParams);
    const sorted = new URLSearchParams(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : 1)));
    return {
      key: explicit ?? `app://resource?${sorted}`,
      url: url.toString(),
      resource: params,
      ...(name ? { name } : {}),
    };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const stable = new URL(url);
  for (const k of [...stable.searchParams.keys()]) if (VOLATILE.test(k)) stable.searchParams.delete(k);
  stable.hash = '';
  return { key: explicit ?? stable.toString(), url: url.toString(), ...(name ? { name } : {}) };
}

/** The references of a file field value; `invalid` counts entries that are not file references. */
export function parseFileRefs(value: unknown): { refs: FileRef[]; invalid: number } {
  if (value === null || value === undefined || value === '') return { refs: [], invalid: 0 };
  const list = Array.isArray(value) ? value : [value];
  const refs = new Map<string, FileRef>();
  let invalid = 0;
  for (const raw of list) {
    const ref = parseOne(raw);
    if (!ref) invalid++;
    // A key sent twice in one row is one file.
    else if (!refs.has(ref.key)) refs.set(ref.key, ref);
  }
  return { refs: [...refs.values()], invalid };
}

/** A URL fit for a message: no query string (it may carry a signature or a token). */
export function describeUrl(url: string): string {
  if (!URL.canParse(url)) return 'an invalid address';
  const u = new URL(url);
  return u.protocol === 'app:' ? 'app://resource' : `${u.origin}${u.pathname}`;
}
