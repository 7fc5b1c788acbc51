import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'core',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Type tests (*.test-d.ts) are checked by the root `tsc -p tsconfig.json` (`pnpm typecheck`,
    // the first step of `pnpm test`), not by a second tsc here.
  },
});
