// The build context: every file under the repository root that `.dockerignore` does not exclude.
// Only the pattern forms the repository uses are supported (`name`, `dir/name`, `**/name`,
// `**/*.ext`, `*.ext`); anything else is an error rather than a silent mismatch with Docker.
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export type Matcher = (path: string) => boolean;

export function parseDockerignore(text: string): Matcher {
  const rules: Matcher[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const pattern = line.replace(/^\/+|\/+$/g, '');
    if (/[!?[\]]/.test(pattern))
      throw new Error(`.dockerignore: pattern "${line}" is not supported by the check`);
    const anyDepth = pattern.startsWith('**/');
    const body = anyDepth ? pattern.slice(3) : pattern;
    if (body.includes('*') && !/^\*\.[^*/]+$/.test(body)) {
      throw new Error(`.dockerignore: pattern "${line}" is not supported by the check`);
    }
    const matchName = body.startsWith('*.')
      ? (name: string) => name.endsWith(body.slice(1))
      : (name: string) => name === body;
    rules.push((path) => {
      const segments = path.split('/');
      // A pattern without ** matches from the root; Docker then excludes everything below it too.
      if (!anyDepth)
        return body.includes('/') ? path === body || path.startsWith(`${body}/`) : matchName(segments[0]!);
      return segments.some(matchName);
    });
  }
  return (path) => rules.some((rule) => rule(path));
}

/** Paths (with `/`) of the files in the context, relative to `root`. */
export function contextFiles(root: string, excluded: Matcher): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const path = relative(root, full).split(sep).join('/');
      if (excluded(path)) continue;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.push(path);
    }
  };
  walk(root);
  return files.sort();
}
