// How tests start this checkout's code in a child process (`weft`, an app, a fixture): on the
// build when it is fresh (`pnpm test` runs `pnpm build` first), else on the sources through tsx.
// The build is compiled from the same sources, so the child runs the same code either way; loading
// TypeScript through tsx costs a child seconds of CPU, the build a fraction of that, and a full run
// starts a few hundred children. A single test file run on a checkout without a build (or with
// sources edited since) still works: it falls back to tsx. Same rule as scripts/checkout-entry.mjs.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIsFresh, CONDITION } from '../checkout-entry.mjs';

const ROOT = new URL('../../', import.meta.url);

let fresh: boolean | undefined;

/**
 * Whether the build is fresh; asked once per worker (no test edits the packages' sources). A build
 * made during the run (outside-workspace packs one when there was none) is then not used: the
 * sources run instead, the same code.
 */
export function freshBuild(): boolean {
  fresh ??= buildIsFresh();
  return fresh;
}

/**
 * Node options for a child that runs a TypeScript file (an app, a fixture): tsx, and the
 * `weft-dist` condition when the build is fresh, so that `@weft/*` imports load the build and tsx
 * compiles only the file's own code. A file that also imports a package's sources by relative path
 * would then hold two copies of that package: use `tsxArgs()` there.
 */
export function tsNodeArgs(): string[] {
  return freshBuild() ? [`--conditions=${CONDITION}`, ...tsxArgs()] : tsxArgs();
}

// tsx by its address: a bare `--import tsx` is looked up from the child's cwd, and a test that
// starts a child in a temporary folder (outside the checkout) would not find it there.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Node options that run TypeScript from sources only (tsx, no condition). */
export function tsxArgs(): string[] {
  return ['--import', TSX];
}

/**
 * Node arguments that run `packages/<pkg>/src/<entry>.ts`: its build (`dist/<entry>.js` under the
 * `weft-dist` condition) when fresh, else the source through tsx. Absolute paths: any cwd works.
 */
export function entryArgs(pkg: string, entry: string): string[] {
  if (freshBuild()) {
    return [`--conditions=${CONDITION}`, fileURLToPath(new URL(`packages/${pkg}/dist/${entry}.js`, ROOT))];
  }
  return [...tsxArgs(), fileURLToPath(new URL(`packages/${pkg}/src/${entry}.ts`, ROOT))];
}
