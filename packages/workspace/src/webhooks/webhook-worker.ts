import { codecsFor, DEFAULT_NAMESPACE, type Namespace, type NamespaceCodec } from '@weft/namespace';
import type { Driver } from '../db/driver.js';
import { PollingLoop } from '../db/polling-loop.js';
import { OutboundPolicy, outboundFetch } from '../outbound/index.js';
import { loadCatalog } from '../schema/catalog.js';
import { catalogLookup } from '../schema/field-lookup.js';

// Delivers queued webhook payloads. Deliveries live in svc_deliveries (written in the same
// transaction as the change); a worker claims due ones with a lease (FOR UPDATE SKIP LOCKED, so
// several processes never deliver the same one at once), POSTs them, records a run, and on failure
// schedules the next attempt with exponential backoff. A process that stops mid-delivery leaves a
// lease that expires: the delivery is retried (at least once). A webhook's deliveries claimed
// together are sent in the order of their changes (a failed one is retried after the others).

export interface WebhookWorkerOptions {
  /** how often due deliveries are looked for, besides after every command (ms) */
  pollMs?: number;
  /** attempts before a delivery is given up (state `failed`) */
  maxAttempts?: number;
  /** delay before attempt n+1 after n failures (ms) */
  backoffMs?: (failures: number) => number;
  /** time limit of one POST (ms) */
  timeoutMs?: number;
  /** how long a claimed delivery is hidden from other workers (ms) */
  leaseMs?: number;
}

export const RUNS_KEPT = 50;
/** Deliveries claimed at a time. */
const CLAIM = 10;

interface Claimed {
  id: number;
  webhook_id: number;
  body: unknown;
  attempts: number;
  url: string;
}

export class WebhookWorker {
  private readonly loop: PollingLoop;
  private readonly maxAttempts: number;
  private readonly backoffMs: (failures: number) => number;
  private readonly timeoutMs: number;
  private readonly leaseMs: number;
  private readonly codec: NamespaceCodec | undefined;

  constructor(
    private readonly driver: Driver,
    options: WebhookWorkerOptions,
    private readonly log: (message: string, error?: unknown) => void,
    /** who may be delivered to: a subscription's address is checked when delivered, after DNS */
    private readonly outbound: OutboundPolicy = new OutboundPolicy({ allowPrivateNetworks: true }),
    /** the namespace receivers read deliveries in (payloads are stored in svc) */
    namespace: Namespace = DEFAULT_NAMESPACE,
  ) {
    this.codec = codecsFor(namespace)?.out;
    this.loop = new PollingLoop(
      () => this.drain(),
      options.pollMs ?? 1000,
      (error) => this.log('webhook delivery failed', error),
    );
    this.maxAttempts = options.maxAttempts ?? 8;
    this.backoffMs = options.backoffMs ?? ((n) => Math.min(2 ** n * 1000, 5 * 60_000));
    this.timeoutMs = options.timeoutMs ?? 10_000;
    // Long enough for a whole claim sent one after another (one webhook's, at the time limit each).
    this.leaseMs = options.leaseMs ?? Math.max(60_000, this.timeoutMs * (CLAIM + 2));
  }

  start(): void {
    this.loop.start();
  }

  /** Looks for due deliveries now (called after every command). */
  wake(): void {
    this.loop.wake();
  }

  /** Resolves once nothing is due any more (for tests and shutdown). */
  async idle(): Promise<void> {
    await this.loop.idle();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.loop.isStopped) return;
      const { rows } = await this.driver.query<Claimed>(
        `UPDATE svc_deliveries d SET next_at = clock_timestamp() + make_interval(secs => $1::float8 / 1000),
           attempts = d.attempts + 1
         FROM svc_webhooks w
         WHERE w.id = d.webhook_id AND d.id IN (
           SELECT id FROM svc_deliveries WHERE state = 'pending' AND next_at <= clock_timestamp()
           ORDER BY id LIMIT ${CLAIM} FOR UPDATE SKIP LOCKED)
         RETURNING d.id, d.webhook_id, d.body, d.attempts, w.url`,
        [this.leaseMs],
      );
      if (rows.length === 0) return;
      // One webhook's deliveries go out one after another, oldest first, so its receiver sees a
      // create before the update that follows it; different webhooks are delivered at once.
      const byHook = new Map<number, Claimed[]>();
      for (const d of rows.sort((a, b) => a.id - b.id)) {
        const queue = byHook.get(d.webhook_id);
        if (queue) queue.push(d);
        else byHook.set(d.webhook_id, [d]);
      }
      await Promise.all(
        [...byHook.values()].map(async (queue) => {
          for (const d of queue) await this.deliver(d);
        }),
      );
    }
  }

  private async inNamespace(body: unknown): Promise<unknown> {
    if (!this.codec) return body;
    return this.codec.withLookup(catalogLookup(await loadCatalog(this.driver))).delivery(body);
  }

  private async deliver(d: Claimed): Promise<void> {
    const requestTime = new Date();
    const started = performance.now();
    let status = '0';
    try {
      const res = await outboundFetch(this.outbound, d.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'weft-workspace-webhooks/2' },
        body: JSON.stringify(await this.inNamespace(d.body)),
        timeoutMs: this.timeoutMs,
        maxRedirects: 0,
      });
      status = String(res.status);
      await res.body?.cancel().catch(() => {});
    } catch {
      status = '0';
    }
    const elapsed = String(Math.round(performance.now() - started));
    const ok = status.startsWith('2');
    if (this.loop.isStopped) return;
    await this.driver.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO svc_webhook_runs (webhook_id, http_status, elapsed_time, request_time) VALUES ($1, $2, $3, $4)`,
        [d.webhook_id, status, elapsed, requestTime.toISOString()],
      );
      await tx.query(
        `DELETE FROM svc_webhook_runs WHERE webhook_id = $1 AND id NOT IN
           (SELECT id FROM svc_webhook_runs WHERE webhook_id = $1 ORDER BY id DESC LIMIT ${RUNS_KEPT})`,
        [d.webhook_id],
      );
      if (ok) {
        await tx.query(`UPDATE svc_deliveries SET state = 'done' WHERE id = $1`, [d.id]);
      } else if (d.attempts >= this.maxAttempts) {
        await tx.query(`UPDATE svc_deliveries SET state = 'failed' WHERE id = $1`, [d.id]);
      } else {
        await tx.query(
          `UPDATE svc_deliveries SET next_at = clock_timestamp() + make_interval(secs => $2::float8 / 1000) WHERE id = $1`,
          [d.id, this.backoffMs(d.attempts)],
        );
      }
    });
  }
}
