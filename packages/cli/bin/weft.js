#!/usr/bin/env node
// The `weft` command; the logic is in src/main.ts (built to dist/) so that tests can run it in-process.
// In a weft checkout the other @weft packages resolve to their TypeScript sources, which plain Node
// cannot load (ERR_UNKNOWN_FILE_EXTENSION), so there the bin runs the CLI from its sources through
// tsx; an installed package has no src/ and runs its build.
import { existsSync } from 'node:fs';

const source = new URL('../src/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/main.js');
}
