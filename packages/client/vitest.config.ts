import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'client',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each file starts a real workspace (PGlite) while other suites share two cores.
    hookTimeout: 60_000,
    testTimeout: 60_000,
    // Type tests (*.test-d.ts) are checked with this package's own tsconfig, not the whole repo's.
    typecheck: {
      enabled: true,
      include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
  },
});
