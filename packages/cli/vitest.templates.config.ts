import { defineProject } from 'vitest/config';

// The templates' own tests, against the workspace's packages. A project of their own because they
// are written as an app's tests are (one file, one process: the integration template calls
// useCassette at the top of a file, for the rest of the process), so they stay isolated where the
// rest of the cli tests share a module graph per worker.
export default defineProject({
  test: {
    name: 'cli-templates',
    include: ['templates/*/test/**/*.test.ts'],
    testTimeout: 30_000,
  },
});
