// Verify (host/verify-run.ts, docs/drift.md) against the full sync it stands in for: N rows of one
// type synced into a fresh workspace on PGlite, then verified (a full sync read into a shadow,
// compared with the stored rows). Prints both times and Verify's share of the sync's, target
// 1.5 (ratio below 1 is good). WEFT_BENCH_VERIFY_ROWS sets N (default 100,000).
import type { AddressInfo } from 'node:net';
import { createServer, silentLogger } from '@weft/core';
import { openWorkspace } from '../src/index.js';
import { AppHost } from '../src/host/app-host.js';
import { SecretBox } from '../src/host/secret-box.js';
import { bulkApp } from './bulk-app.js';

const N = Number(process.env.WEFT_BENCH_VERIFY_ROWS ?? 100_000);
const TARGET = 1.5;

const app = bulkApp(N, 'verify-bench');

const server = createServer(app, { logger: silentLogger }).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const ws = await openWorkspace({ database: { kind: 'memory' }, webhooks: false, log: () => {} });
const host = await AppHost.open(ws, {
  box: new SecretBox('bench'),
  publicUrl: () => 'http://127.0.0.1',
  scheduleEveryMs: 0,
  log: () => {},
});
try {
  const source = await host.addSource({ url });
  let started = performance.now();
  const run = await host.sync(source.id, { wait: true });
  const syncSeconds = (performance.now() - started) / 1000;
  if (run.status !== 'succeeded' || run.rowsSet !== N)
    throw new Error(`sync ${run.status}: ${run.error} (${run.rowsSet} rows)`);
  (globalThis as { gc?: () => void }).gc?.();
  started = performance.now();
  const verified = (await host.verify(source.id)) as {
    status: string;
    error: string | null;
    verify?: { drifted: boolean };
  };
  const verifySeconds = (performance.now() - started) / 1000;
  if (verified.status !== 'succeeded' || verified.verify?.drifted !== false)
    throw new Error(`verify ${verified.status}: ${verified.error}`);
  const share = verifySeconds / syncSeconds;
  console.log(
    `bench drift-verify: ${N.toLocaleString('en-US')} rows on PGlite, full sync ${syncSeconds.toFixed(1)} s, Verify ${verifySeconds.toFixed(1)} s (${share.toFixed(2)}x the sync), target ${TARGET}x, ratio ${(share / TARGET).toFixed(2)}`,
  );
} catch (error) {
  console.error(`bench drift-verify: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await host.close();
  await ws.close();
  server.closeAllConnections();
  server.close();
}
