// `weft dev`'s syncs wait their turn. A run still going answers 409: one cut off by an app restart,
// one that this process took over from a `weft dev` stopped with Ctrl-C (its jobs are tried again
// here), or one of another live process on a shared Postgres. The sync is asked for again every
// half second until that run ends. A run left by a killed `weft dev` is no reason to wait: once
// its lease lapses (DEV_LEASE_SECONDS) the sync fails it and starts.
import { type HostedWorkspace, LOCAL_LEASE_SECONDS, runModeLabel } from '@weft/workspace';
import type { CliIo } from '../io.js';

/**
 * The lease of `weft dev`'s sync runs: a run left by a `weft dev` that was killed blocks the next
 * start for at most this long (a server keeps the host's longer default).
 */
export const DEV_LEASE_SECONDS = LOCAL_LEASE_SECONDS;

type Run = Awaited<ReturnType<HostedWorkspace['apps']['sync']>>;

export async function syncWhenFree(
  ws: HostedWorkspace,
  id: string,
  options: Parameters<HostedWorkspace['apps']['sync']>[1] = {},
  io?: CliIo,
): Promise<Run> {
  for (let told = false; ; told = true) {
    try {
      return await ws.apps.sync(id, { ...options, wait: true });
    } catch (error) {
      if ((error as { status?: number }).status !== 409) throw error;
      if (!told) io?.stdout.write('A sync of this source is under way: waiting for it to end\n');
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * How the run synced, truthfully, for the line that reports it: ` · delta`, ` · full` (and why it
 * was made full), or, when the app answered some types full and others delta, which were which.
 */
export function syncKind(run: Run): string {
  return ` · ${runModeLabel(run) ?? 'full'}`;
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
