#!/usr/bin/env node
// The `weft` command; the logic is in src/main.ts (built to dist/) so that tests can run it in-process.
// An installed package has no src/ and runs its build. In a weft checkout the other @weft packages
// resolve to their TypeScript sources, which plain Node cannot load, so there the checkout's runner
// picks the build when it is newer than every source, else the sources through tsx.
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/main.ts', import.meta.url))) {
  const { runEntry } = await import('../../../scripts/checkout-entry.mjs');
  await runEntry('cli', 'main');
} else {
  await import('../dist/main.js');
}
