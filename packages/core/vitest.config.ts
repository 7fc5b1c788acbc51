import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'core',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // One module graph per worker rather than per file: importing core again for each file cost
    // more than most files' tests. Files that change the environment put it back after them.
    isolate: false,
    // Type tests (*.test-d.ts) are checked by the root `tsc -p tsconfig.json` (`pnpm typecheck`,
    // the first step of `pnpm test`), not by a second tsc here.
  },
});
