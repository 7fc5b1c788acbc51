import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'conformance',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // One module graph per worker rather than per file (see packages/core/vitest.config.ts).
    isolate: false,
    // Property runs over a million ids take 1-4 s on a quiet machine; the default 5 s leaves no
    // room for a shared, loaded one.
    testTimeout: 30_000,
  },
});
