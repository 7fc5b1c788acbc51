#!/usr/bin/env node
// The `weft-conformance` command; the logic is in cli-main.ts so that tests can run it in-process.
import { main } from './cli-main.js';

process.exitCode = await main(process.argv.slice(2));
