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
    // Three test files at a time on the two cores: most files wait on sockets, child processes
    // and the database rather than compute, and a third file runs while the other two wait. The
    // whole suite (CI=true, Postgres and Chromium, all 2,430 tests passing each time) took 540 and
    // 486 s with two, 431 and 409 s with three, run in turns on the development machine.
    maxWorkers: 3,
  },
});
