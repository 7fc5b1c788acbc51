import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../io.js';
import { WEFT_PACKAGES, type WeftPackage } from './versions.js';

/**
 * The `pnpm pack` tarballs of every weft package in `dir` (`weft-core-0.1.0.tgz`, ...), as absolute
 * paths. The one of `version` wins when several versions lie there.
 */
export function findTarballs(dir: string, version: string): Record<WeftPackage, string> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.tgz'));
  } catch {
    throw new UsageError(`--from: cannot read the folder ${dir}`);
  }
  const found: Partial<Record<WeftPackage, string>> = {};
  const missing: string[] = [];
  for (const pkg of WEFT_PACKAGES) {
    const stem = pkg.replace('@', '').replace('/', '-');
    const candidates = names.filter((n) => new RegExp(`^${stem}-\\d+\\.\\d+\\.\\d+.*\\.tgz$`).test(n));
    const exact = candidates.find((n) => n === `${stem}-${version}.tgz`);
    const chosen = exact ?? candidates.sort().at(-1);
    if (chosen) found[pkg] = join(dir, chosen);
    else missing.push(`${stem}-${version}.tgz`);
  }
  if (missing.length > 0) {
    throw new UsageError(
      `--from ${dir}: missing ${missing.join(', ')} (make them with \`pnpm packs\` in the weft repository: they land in dist/packs/)`,
    );
  }
  return found as Record<WeftPackage, string>;
}
