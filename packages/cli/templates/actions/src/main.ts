import { startServer } from '@weft/core';
import { app } from './app.js';

// Listens on PORT (default 3000), prints the URL, stops gracefully on SIGTERM.
await startServer(app, { defaultPort: 3000 });
