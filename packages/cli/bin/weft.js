#!/usr/bin/env node
// The `weft` command; the logic is in src/main.ts (built to dist/) so that tests can run it in-process.
import '../dist/main.js';
