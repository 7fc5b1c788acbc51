import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'workspace',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One module graph per worker rather than per file: each file imported the whole workspace
    // (and PGlite) again, which cost more than many of its tests. The files share no state that
    // outlives them: each opens workspaces of its own, puts back any environment it changes, and
    // the process-wide maps in src are keyed by run, driver or folder.
    isolate: false,
  },
});
