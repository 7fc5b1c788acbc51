import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'real-clients',
    include: ['*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
