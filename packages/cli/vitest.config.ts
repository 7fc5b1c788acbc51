import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'cli',
    // The templates' own tests run in a project of their own (vitest.templates.config.ts).
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // One module graph per worker rather than per file (see packages/core/vitest.config.ts): the
    // dev tests import the workspace in-process.
    isolate: false,
  },
});
