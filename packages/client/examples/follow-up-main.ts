// Serves the example app: `npx tsx packages/client/examples/follow-up-main.ts` (PORT, else 3110).
import { startServer } from '@weft/core';
import { followUpApp } from './follow-up-app.js';

await startServer(followUpApp, { defaultPort: 3110 });
