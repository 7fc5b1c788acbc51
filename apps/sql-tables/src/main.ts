import { startServer } from '@weft/core';
import { createSqlTablesApp } from './app.js';
import { databaseSource } from './databases.js';
import { openDemoDatabase } from './demo.js';

// Without DATABASE_URL the embedded demo database serves accounts that name no database. It is
// opened before the server listens, so the app says "listening" only once it can answer (a
// request would otherwise wait for the database to be created).
const databaseUrl = process.env.DATABASE_URL || undefined;
if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
  // Say what is wrong and stop, without a stack trace (and without echoing the URL: it may hold a password).
  console.error('SQL tables cannot start: DATABASE_URL must start with postgres:// or postgresql://');
  process.exit(1);
}
const demo = databaseUrl
  ? undefined
  : await openDemoDatabase().catch((error: Error) => {
      console.error(`SQL tables cannot start the embedded database: ${error.message}`);
      process.exit(1);
    });
const source = databaseSource({
  databaseUrl,
  embedded: async () => demo ?? openDemoDatabase(),
});
const running = await startServer(createSqlTablesApp({ source }), { defaultPort: 3105 });
// On SIGTERM/SIGINT core closes the server and exits; the embedded database's worker is closed
// with it (and its directory removed on exit, embedded.ts).
running.server.on('close', () => {
  void source.close();
  void demo?.close();
});
