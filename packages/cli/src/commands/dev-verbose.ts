// `weft dev --verbose`: every data request of a sync as it happens, the same lines the page shows
// under the run (request with the account's secrets redacted, status, duration, items, warnings,
// and the app's error body).
import type { HostedWorkspace, RunExchange } from '@weft/workspace';
import { exchangeLine } from '@weft/sync-engine';
import type { CliIo } from '../io.js';

export function exchangeDetail(e: RunExchange): string {
  return `${e.type} page ${e.page}${e.items !== undefined ? `: ${e.items} items` : ''}`;
}

/** Prints each exchange of the workspace's syncs; returns the way to stop. */
export function showExchanges(ws: HostedWorkspace, io: CliIo): () => void {
  return ws.apps.onExchange((_source, e) => {
    const warnings = e.warnings.map((w) => `\n  warning: ${w}`).join('');
    io.stdout.write(`${exchangeLine(e, exchangeDetail(e))}${warnings}\n`);
  });
}
