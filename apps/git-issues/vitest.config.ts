import { defineProject } from 'vitest/config';

export default defineProject({
  // Isolated (unlike the other apps): its cassette tests call useCassette at the top of the file,
  // which holds for the rest of the process, as core documents for an app's own tests.
  test: { name: 'git-issues', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 30_000 },
});
