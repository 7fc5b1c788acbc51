// `npm run tracker`: the demo tracker on http://127.0.0.1:4010 (TRACKER_PORT to change it).
import { startTracker } from './tracker-server.js';

const running = await startTracker(Number(process.env.TRACKER_PORT ?? 4010));
console.log(`Demo tracker listening on ${running.url} (token: demo-token)`);
