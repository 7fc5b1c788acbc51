import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'namespace',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
