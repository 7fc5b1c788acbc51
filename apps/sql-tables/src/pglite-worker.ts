// The embedded database's thread (see worker-database.ts): opens the PGlite cluster in the
// directory it is given and answers the app's statements, one message each, in order. PGlite
// runs Postgres in this thread's WebAssembly, where a statement holds the thread until it ends;
// so the app's own thread stays free, and the app can end this thread when a statement is over
// its time limit.
import { parentPort, workerData } from 'node:worker_threads';
import { pgliteDatabase } from './database.js';
import { openCluster } from './embedded.js';

/** A statement to run: `rows` as objects, `arrays` as arrays, `exec` a script of several statements. */
export interface WorkerRequest {
  id: number;
  op: 'rows' | 'arrays' | 'exec' | 'close';
  sql: string;
  params?: unknown[];
}

export type WorkerReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { message: string; code?: string } & Record<string, unknown> }
  | { id: -1; ok: true; result: 'ready' }
  | { id: -1; ok: false; error: { message: string } };

/** Postgres's fields of an error (code, detail, position, ...), which a structured clone would drop. */
function plainError(error: unknown): { message: string } & Record<string, unknown> {
  const e = error as Error & Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(e ?? {})) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return { ...fields, message: e?.message ?? String(error) };
}

const port = parentPort!;
const { dir } = workerData as { dir: string };
try {
  const lite = await openCluster(dir);
  const db = await pgliteDatabase(lite);
  port.on('message', async (request: WorkerRequest) => {
    let reply: WorkerReply;
    try {
      let result: unknown;
      if (request.op === 'rows') {
        const { rows, fields } = await db.query(request.sql, request.params);
        result = { rows, fields };
      } else if (request.op === 'arrays') result = await db.queryArrays(request.sql, request.params);
      else if (request.op === 'exec') result = void (await lite.exec(request.sql));
      else {
        await lite.close();
        result = null;
      }
      reply = { id: request.id, ok: true, result };
    } catch (error) {
      reply = { id: request.id, ok: false, error: plainError(error) };
    }
    port.postMessage(reply);
    if (request.op === 'close') port.close();
  });
  port.postMessage({ id: -1, ok: true, result: 'ready' } satisfies WorkerReply);
} catch (error) {
  port.postMessage({ id: -1, ok: false, error: plainError(error) } satisfies WorkerReply);
}
