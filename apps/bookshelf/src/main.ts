import { startServer } from '@weft/core';
import { bookshelfApp } from './app.js';

await startServer(bookshelfApp, { defaultPort: 3101 });
