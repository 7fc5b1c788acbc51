import { startServer } from '@weft/core';
import { createCalendarFeedApp } from './app.js';
import { feedsFromEnv } from './feeds.js';

let feeds: ReturnType<typeof feedsFromEnv>;
try {
  feeds = feedsFromEnv();
} catch (error) {
  // A misconfigured FEED_URL: say what is wrong and stop, without a stack trace.
  console.error(`Calendar feed cannot start: ${(error as Error).message}`);
  process.exit(1);
}
await startServer(createCalendarFeedApp({ feeds }), { defaultPort: 3103 });
