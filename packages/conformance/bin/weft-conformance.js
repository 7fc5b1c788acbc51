#!/usr/bin/env node
// The `weft-conformance` command; the logic is in src/cli-main.ts (built to dist/). An installed
// package has no src/ and runs its build. In a weft checkout the checkout's runner picks the build
// when it is newer than every source, else the sources through tsx (whose loader thread and
// compiler cost the kit's run about 70 MB of resident memory).
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/cli.ts', import.meta.url))) {
  const { runEntry } = await import('../../../scripts/checkout-entry.mjs');
  await runEntry('conformance', 'cli');
} else {
  await import('../dist/cli.js');
}
