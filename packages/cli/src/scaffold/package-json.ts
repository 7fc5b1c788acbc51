import type { TemplateName } from './scaffold.js';
import { TOOL_VERSIONS, WEFT_PACKAGES, type WeftPackage } from './versions.js';

/** Scripts of a scaffolded app; `check` runs the kit against the app started by `npm start`. */
const SCRIPTS: Record<TemplateName, Record<string, string>> = {
  integration: {
    start: 'tsx src/main.ts',
    test: 'vitest run',
    typecheck: 'tsc',
    tracker: 'tsx src/serve-tracker.ts',
    check: 'weft check http://localhost:3000 --account account.json',
    // Only the tests that replay a cassette: the drift test runs live against the demo tracker.
    record: 'WEFT_UPSTREAM=record vitest run test/app.test.ts',
  },
  actions: {
    start: 'tsx src/main.ts',
    test: 'vitest run',
    typecheck: 'tsc',
    check: 'weft check http://localhost:3000 --account account.json',
  },
};

/**
 * The app's package.json: weft packages at `version` from the registry, or, with `tarballs`, from
 * local `file:` tarballs, with npm `overrides` so that their own dependencies on each other use
 * the tarballs too and npm never asks the registry for a weft package.
 */
export function appPackageJson(options: {
  name: string;
  template: TemplateName;
  version: string;
  tarballs?: Record<WeftPackage, string> | undefined;
}): Record<string, unknown> {
  const spec = (pkg: WeftPackage) =>
    options.tarballs ? `file:${options.tarballs[pkg]}` : `^${options.version}`;
  return {
    name: options.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    engines: { node: '>=20.19' },
    scripts: SCRIPTS[options.template],
    dependencies: { '@weft/core': spec('@weft/core'), tsx: TOOL_VERSIONS.tsx },
    devDependencies: {
      '@types/node': TOOL_VERSIONS['@types/node'],
      '@weft/cli': spec('@weft/cli'),
      '@weft/conformance': spec('@weft/conformance'),
      typescript: TOOL_VERSIONS.typescript,
      vitest: TOOL_VERSIONS.vitest,
    },
    ...(options.tarballs
      ? { overrides: Object.fromEntries(WEFT_PACKAGES.map((pkg) => [pkg, spec(pkg)])) }
      : {}),
  };
}
