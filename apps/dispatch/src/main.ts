import { startServer } from '@weft/core';
import { createDispatchApp, DISPATCH_ROUTER_OPTIONS } from './app.js';
import { configFromEnv } from './config.js';

let config: ReturnType<typeof configFromEnv>;
try {
  config = configFromEnv();
} catch (error) {
  // A misconfigured deployment: name the variable and stop (the message never holds a secret).
  console.error(`Dispatch cannot start: ${(error as Error).message}`);
  process.exit(1);
}
if (!config.smtpUrl) console.log('Dispatch: SMTP_URL is unset, so e-mails are logged, not sent');
await startServer(createDispatchApp(config), { ...DISPATCH_ROUTER_OPTIONS, defaultPort: 3104 });
