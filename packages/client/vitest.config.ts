import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'client',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // One module graph per worker rather than per file (see packages/core/vitest.config.ts).
    isolate: false,
    // Each file starts a real workspace (PGlite) while other suites share two cores.
    hookTimeout: 60_000,
    testTimeout: 60_000,
    // Type tests (*.test-d.ts) are checked by the root `tsc -p tsconfig.json` (`pnpm typecheck`,
    // the first step of `pnpm test`), not by a second tsc here.
  },
});
