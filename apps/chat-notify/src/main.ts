import { startServer } from '@weft/core';
import { chatNotifyApp } from './app.js';

await startServer(chatNotifyApp, { defaultPort: 3102 });
