import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      'packages/*',
      'packages/cli/vitest.templates.config.ts',
      'apps/*',
      'scripts',
      'docs',
      'tests/*',
    ],
    // Two test files at a time on the two cores (vitest's default leaves one core idle): most
    // files wait on sockets, child processes and the database rather than compute.
    maxWorkers: 2,
  },
});
