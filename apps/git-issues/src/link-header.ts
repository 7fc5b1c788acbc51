// GitHub pages its lists with RFC 8288 Link headers:
//   Link: <https://api.github.com/repositories/1/issues?page=2>; rel="next", <...>; rel="last"
// The app follows `next` as given (an absolute URL), never builds page numbers itself.

/** The URL of the link with this relation, or undefined. */
export function linkOf(header: string | null, rel: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const match = /<([^>]+)>\s*;(.*)$/.exec(part.trim());
    if (!match) continue;
    const rels = /rel="?([^";]+)"?/.exec(match[2]!)?.[1]?.split(/\s+/) ?? [];
    if (rels.includes(rel)) return match[1];
  }
  return undefined;
}
