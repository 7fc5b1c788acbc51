import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  type Exchange,
  type ExchangeRequest,
  requestText,
  sendExchange,
  type TransportOptions,
} from './exchange.js';

// App calls sent from a worker thread: sendExchange runs there (exchange-worker.ts), so reading an
// answer's bytes and parsing its JSON happen beside the caller's own work instead of between its
// statements. The workspace host uses it on PGlite, whose database runs on the main thread: there a
// page read ahead was read only between the statements that write the page before it. The
// exchange comes back whole (structured clone): the same object sendExchange makes in process.

/** What sends one request and records the exchange: sendExchange itself, or an ExchangeThread's send. */
export type Exchanger = typeof sendExchange;

/** A message to the thread: a request to send, or a stop of one under way. */
export type ExchangeMessage =
  | {
      kind: 'send';
      id: number;
      baseUrl: string;
      request: ExchangeRequest;
      rawBody: string | undefined;
      options: Omit<TransportOptions, 'signal'>;
    }
  | { kind: 'stop'; id: number };

/** A message from the thread: it has loaded and takes calls, or a call's exchange. */
export type ExchangeReply = { kind: 'ready' } | { kind: 'done'; id: number; exchange: Exchange };

interface Pending {
  resolve: (exchange: Exchange) => void;
  baseUrl: string;
  request: ExchangeRequest;
  rawBody: string | undefined;
  options: TransportOptions;
  started: number;
  unlisten: () => void;
}

/**
 * The thread, on the built module beside this one; in a checkout run from its sources (this file
 * is .ts), on the .ts module, which the thread loads after registering tsx's loader itself (a
 * worker does not take its parent's `--import tsx`, and vitest's transform is not Node's).
 */
function newWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./exchange-worker.js', import.meta.url));
  // tsx's ESM API (its `tsx/esm/api` export, as its package.json maps it for `import`).
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  const api = new URL(exports['./esm/api']!.import.default, pathToFileURL(manifest)).href;
  const entry = new URL('./exchange-worker.ts', import.meta.url).href;
  return new Worker(
    `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    { eval: true },
  );
}

/**
 * One worker thread sending app calls (see above). It starts with the first call and holds the
 * process open only while calls are under way. A thread that cannot start (it fails before it has
 * loaded) is given up: its calls, and every later one, are sent in process. A call whose thread
 * stops later (it failed, or `close` ran) ends as an exchange without an answer, `failureCode`
 * `thread-stopped`, as a connection that broke would; the next call starts a new thread.
 * `makeWorker` replaces how the thread is made (tests make one that cannot start).
 */
export class ExchangeThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;
  /** no thread could start: calls go out in process */
  private inProcess = false;

  constructor(private readonly makeWorker: () => Worker = newWorker) {}

  /** Sends one request on the thread; resolves with its exchange, never rejects (as sendExchange). */
  readonly send: Exchanger = (baseUrl, request, rawBody, options) => {
    const worker = this.closed || this.inProcess ? undefined : this.start();
    if (!worker) return sendExchange(baseUrl, request, rawBody, options);
    const { signal, ...transport } = options;
    const id = this.nextId++;
    return new Promise<Exchange>((resolve) => {
      const stop = () => worker.postMessage({ kind: 'stop', id } satisfies ExchangeMessage);
      signal?.addEventListener('abort', stop, { once: true });
      this.pending.set(id, {
        resolve,
        baseUrl,
        request,
        rawBody,
        options,
        started: performance.now(),
        unlisten: () => signal?.removeEventListener('abort', stop),
      });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({
        kind: 'send',
        id,
        baseUrl,
        request,
        rawBody,
        options: transport,
      } satisfies ExchangeMessage);
      if (signal?.aborted) stop();
    });
  };

  /** Stops the thread; calls under way end as above, and later calls are sent in process. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
    this.settleAll('the thread sending app calls was closed');
  }

  /** The thread, started if need be; undefined when it cannot start (calls then go out in process). */
  private start(): Worker | undefined {
    if (this.worker) return this.worker;
    let worker: Worker;
    try {
      worker = this.makeWorker();
    } catch {
      this.inProcess = true;
      return undefined;
    }
    let ready = false;
    worker.unref();
    worker.on('message', (m: ExchangeReply) => {
      if (m.kind === 'ready') {
        ready = true;
        return;
      }
      const call = this.pending.get(m.id);
      if (!call) return;
      this.pending.delete(m.id);
      call.unlisten();
      if (this.pending.size === 0) worker.unref();
      call.resolve(m.exchange);
    });
    const stopped = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      if (ready || this.closed) {
        this.settleAll(reason);
        return;
      }
      // It stopped before it had loaded: no call went out from it. They go out here instead.
      this.inProcess = true;
      for (const [id, call] of this.pending) {
        this.pending.delete(id);
        call.unlisten();
        void sendExchange(call.baseUrl, call.request, call.rawBody, call.options).then(call.resolve);
      }
    };
    worker.on('error', (error) => stopped(`the thread sending app calls failed: ${error.message}`));
    worker.on('exit', (code) => stopped(`the thread sending app calls stopped (exit code ${code})`));
    this.worker = worker;
    return worker;
  }

  /** Ends every call under way as an exchange without an answer. */
  private settleAll(failure: string): void {
    for (const [id, call] of this.pending) {
      this.pending.delete(id);
      call.unlisten();
      const exchange: Exchange = {
        method: call.request.method,
        path: call.request.path,
        isJson: false,
        ms: performance.now() - call.started,
        failureCode: 'thread-stopped',
        failure,
      };
      const body = requestText(call.request.body, call.rawBody);
      if (body !== undefined) exchange.requestBody = body;
      call.resolve(exchange);
    }
  }
}
