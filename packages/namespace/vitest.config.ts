import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'namespace',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // One module graph per worker rather than per file (see packages/core/vitest.config.ts).
    isolate: false,
  },
});
