import { defineConfig } from 'vitest/config';
import { SlowestFirstSequencer } from './scripts/test-order/sequencer.js';

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'scripts', 'docs', 'tests/*'],
    // Two test files at a time on the two cores (vitest's default leaves one core idle): most
    // files wait on sockets, child processes and the database rather than compute.
    maxWorkers: 2,
    // The longest files first, from scripts/test-order/durations.json (`pnpm test:durations`
    // refreshes it): the run does not end on one long file with the other worker idle.
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
