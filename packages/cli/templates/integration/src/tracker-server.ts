// A small local stand-in for the tracker's API, so the app runs and records offline. Replace it
// with the real API: only TRACKER_URL changes.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DELETIONS, DEMO_TOKEN, PROJECTS, TASKS } from './tracker-data.js';

/** Tasks per page of GET /tasks. */
export const TRACKER_PAGE_SIZE = 10;

export interface RunningTracker {
  url: string;
  close(): Promise<void>;
}

/** Starts the demo tracker on `port` (0: any free port). */
export async function startTracker(port = 0, host = '127.0.0.1'): Promise<RunningTracker> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Edits of the demo tracker, as its users would make them: for tests that change the upstream
 * between two syncs (see test/drift.test.ts).
 */
export const trackerEdits = {
  deleteTask(id: string): void {
    const at = TASKS.findIndex((t) => t.id === id);
    if (at < 0) return;
    TASKS.splice(at, 1);
    DELETIONS.push({ id, deletedAt: new Date().toISOString() });
  },
  renameTask(id: string, title: string): void {
    const task = TASKS.find((t) => t.id === id);
    if (task) Object.assign(task, { title, updatedAt: new Date().toISOString() });
  },
};

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://tracker');
  const send = (status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (req.headers.authorization !== `Bearer ${DEMO_TOKEN}`) {
    send(401, { message: 'Bad token' });
    return;
  }
  const q = url.searchParams;
  switch (`${req.method} ${url.pathname}`) {
    case 'GET /me':
      send(200, { id: 'u-1', name: 'Demo User' });
      return;
    case 'GET /projects':
      send(200, PROJECTS);
      return;
    case 'GET /tasks': {
      const page = Math.max(1, Number(q.get('page') ?? '1') || 1);
      const since = q.get('updated_since');
      const from = q.get('due_from');
      const to = q.get('due_to');
      const matching = TASKS.filter(
        (t) =>
          (!q.get('project') || t.projectId === q.get('project')) &&
          (!since || t.updatedAt >= since) &&
          (!from || (t.due !== null && t.due >= from.slice(0, 10))) &&
          (!to || (t.due !== null && t.due <= to.slice(0, 10))),
      );
      const tasks = matching.slice((page - 1) * TRACKER_PAGE_SIZE, page * TRACKER_PAGE_SIZE);
      const next = page * TRACKER_PAGE_SIZE < matching.length ? page + 1 : null;
      send(200, { tasks, next });
      return;
    }
    case 'GET /deleted-tasks': {
      const since = q.get('since') ?? '';
      send(200, { deleted: DELETIONS.filter((d) => d.deletedAt >= since) });
      return;
    }
    default:
      send(404, { message: `No route ${req.method} ${url.pathname}` });
  }
}
