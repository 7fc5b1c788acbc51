import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'date-range',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
