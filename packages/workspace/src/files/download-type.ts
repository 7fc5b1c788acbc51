// A stored file's content type is whatever its uploader (or a remote server) said. Served as is,
// `text/html` or `image/svg+xml` would run the uploader's script in the workspace's origin when a
// browser opened the download, so only types a browser never executes are kept; anything else is
// served as opaque bytes.

const INERT_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'text/plain',
  'text/csv',
  'application/pdf',
  'application/json',
  'application/zip',
  'application/gzip',
  'application/octet-stream',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'video/mp4',
  'video/webm',
]);

/** The Content-Type to serve a stored file with: its own when inert, else application/octet-stream. */
export function downloadType(stored: string): string {
  const essence = stored.split(';')[0]!.trim().toLowerCase();
  if (!INERT_TYPES.has(essence)) return 'application/octet-stream';
  // Text is labelled UTF-8 whatever it declared: a browser then never guesses a charset.
  return essence.startsWith('text/') ? `${essence}; charset=utf-8` : essence;
}
