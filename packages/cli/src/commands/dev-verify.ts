// `weft dev --verify`: after the first sync, the host's Verify (a full sync read into a shadow,
// compared with the workspace's rows; docs/drift.md), printed in a line or two.
import type { HostedWorkspace } from '@weft/workspace';
import type { CliIo } from '../io.js';

interface VerifyRun {
  status: string;
  error: string | null;
  verify?: { drifted: boolean; types: { type: string; rows: number }[] };
}

/** Runs a Verify of the source and prints what it found; true when nothing drifted. */
export async function verifyOnce(ws: HostedWorkspace, sourceId: string, io: CliIo): Promise<boolean> {
  const run = (await ws.apps.verify(sourceId)) as VerifyRun;
  if (run.status !== 'succeeded' || !run.verify) {
    io.stdout.write(`Verify failed: ${run.error}\n`);
    return false;
  }
  if (run.verify.drifted) {
    io.stdout.write(`Verify: the workspace drifted from the app: ${run.error}\n`);
    return false;
  }
  const rows = run.verify.types.map((t) => `${t.type} ${t.rows} rows`).join(', ');
  io.stdout.write(`Verify: no drift, the workspace holds what a full sync would (${rows})\n`);
  return true;
}
