import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'sync-engine',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
