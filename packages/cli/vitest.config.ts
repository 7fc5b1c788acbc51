import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'cli',
    // The templates' own tests run here too, against the workspace's packages.
    include: ['test/**/*.test.ts', 'templates/*/test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
