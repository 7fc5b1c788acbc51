import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'dispatch',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    // One module graph per worker rather than per file (see packages/core/vitest.config.ts).
    isolate: false,
  },
});
