// `weft dev`'s syncs wait their turn: a run still going (cut off by an app restart, or left by a
// `weft dev` that was killed, until its lease lapses: see DEV_LEASE_SECONDS) answers 409, and the
// sync is asked for again shortly after, for up to half a minute.
import type { HostedWorkspace } from '@weft/workspace';

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
