// `weft dev`'s syncs wait their turn: a run still going (cut off by an app restart, or left by a
// `weft dev` that was killed, until its lease lapses: see DEV_LEASE_SECONDS) answers 409, and the
// sync is asked for again shortly after, for up to half a minute.
import type { HostedWorkspace } from '@weft/workspace';
import type { CliIo } from '../io.js';

/**
 * The lease of `weft dev`'s sync runs: a run left by a `weft dev` that was killed blocks the next
 * start for at most this long (a server keeps the host's longer default).
 */
export const DEV_LEASE_SECONDS = 5;

type Run = Awaited<ReturnType<HostedWorkspace['apps']['sync']>>;

export async function syncWhenFree(
  ws: HostedWorkspace,
  id: string,
  options: Parameters<HostedWorkspace['apps']['sync']>[1] = {},
): Promise<Run> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await ws.apps.sync(id, { ...options, wait: true });
    } catch (error) {
      if ((error as { status?: number }).status !== 409 || attempt >= 60) throw error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** How the run synced, truthfully: ` · full (why)` or ` · delta`, for the line that reports it. */
export function syncKind(run: Run): string {
  if (run.mode === 'delta') return ' · delta';
  return run.fullReason ? ` · full: ${run.fullReason}` : ' · full';
}

/** Names the types the app offers that the source does not sync, and how to add them. */
export async function tellUnsynced(ws: HostedWorkspace, id: string, io: CliIo): Promise<void> {
  const missing = await ws.apps.unsyncedTypes(id).catch(() => []);
  if (missing.length === 0) return;
  const source = await ws.apps.source(id);
  io.stdout.write(
    `The app offers types this source does not sync: ${missing.map((t) => `${t.id} (${t.name})`).join(', ')}. ` +
      `Add them with --types ${[...source.types, ...missing.map((t) => t.id)].join(',')}\n`,
  );
}
