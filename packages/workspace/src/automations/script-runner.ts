import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { DEFAULT_NAMESPACE, type Namespace } from '@weft/namespace';
import { MAX_CALLS_IN_FLIGHT, SCRIPT_GUEST_PRELUDE } from './script-guest.js';
import { SCRIPT_WORKER_SOURCE } from './script-worker-source.js';

// Runs one script in a QuickJS engine (WebAssembly) inside a worker thread of its own, answering
// its service calls here (in the host, where the workspace is). The engine stops the script at
// its memory and time limits; the host also terminates the thread when the time limit passes,
// which stops it even inside a single long call of the engine.

export const SVC_METHODS = [
  'getEntityById',
  'getEntitiesByIds',
  'createEntity',
  'updateEntity',
  'addCollectionItem',
  'removeCollectionItem',
  'deleteEntity',
  'setState',
  'setStateToFinal',
  'assignUser',
  'unassignUser',
  'getDocumentContent',
  'setDocumentContent',
  'appendDocumentContent',
  'addComment',
  'executeSingleCommand',
  'addFileFromUrl',
  'graphql',
  'executeAction',
  'createEntityBatch',
  'updateEntityBatch',
  'deleteEntityBatch',
  'addCollectionItemBatch',
  'removeCollectionItemBatch',
  'getSchema',
] as const;

export type ServiceImpl = Record<string, (...params: unknown[]) => Promise<unknown>>;
/**
 * What a script's `context.getService(...)` reaches: the workspace's own service under `name`
 * (the workspace's namespace word, `svc` unless set otherwise) and `http`; `utils` makes its URLs
 * on `origin` (the workspace's address, empty for a path alone).
 */
export type ScriptServices = { svc: ServiceImpl; http: ServiceImpl; name?: Namespace; origin?: string };
/** `console`: what the script printed (console.log/info/debug/warn/error), one line each, at most CONSOLE_LIMIT characters. */
export type ScriptOutcome = ({ ok: true; result: unknown } | { ok: false; message: string }) & {
  console: string;
};

/** How much of a script's console output a run keeps (64 KiB of text). */
export const CONSOLE_LIMIT = 64 * 1024;
export const TRUNCATED = '… (console output truncated)';
/** The most a script's engine may allocate: its objects, strings and ArrayBuffers together. */
export const SCRIPT_MEMORY_BYTES = 64 * 1024 * 1024;
/** How deep the script's own calls may nest (bytes of the engine's stack). */
const SCRIPT_STACK_BYTES = 512 * 1024;

// The engine's modules, resolved here so that the thread loads them by path (its source is eval'd).
const resolve = createRequire(import.meta.url).resolve;
const ENGINE = {
  corePath: resolve('quickjs-emscripten-core'),
  variantPath: resolve('@jitl/quickjs-wasmfile-release-sync'),
};
// Compiled once per process and handed to each thread (a compiled module is shared, not copied),
// so a run does not compile the engine again.
// (Typed by hand: not every TypeScript setup that compiles this file has WebAssembly's types.)
type CompiledModule = object & { readonly __compiledWasm?: never };
const { compile } = (
  globalThis as unknown as { WebAssembly: { compile(b: Uint8Array): Promise<CompiledModule> } }
).WebAssembly;
let compiled: Promise<CompiledModule> | undefined;
const engineModule = () => {
  compiled ??= readFile(resolve('@jitl/quickjs-wasmfile-release-sync/wasm')).then((bytes) => compile(bytes));
  return compiled;
};

export async function runScript(
  code: string,
  args: unknown,
  services: ScriptServices,
  timeoutMs: number,
  /** aborting stops the script at once (the workspace is shutting down) */
  signal?: AbortSignal,
): Promise<ScriptOutcome> {
  const deadline = Date.now() + timeoutMs;
  let wasmModule: CompiledModule;
  try {
    wasmModule = await engineModule();
  } catch {
    compiled = undefined;
    return { ok: false, message: 'The script engine could not be loaded', console: '' };
  }
  const worker = new Worker(SCRIPT_WORKER_SOURCE, {
    eval: true,
    workerData: {
      ...ENGINE,
      wasmModule,
      prelude: SCRIPT_GUEST_PRELUDE,
      code,
      argsJson: JSON.stringify(args) ?? 'null',
      timeoutMs,
      deadline,
      svcMethods: SVC_METHODS.join(','),
      svcName: services.name ?? DEFAULT_NAMESPACE,
      origin: services.origin ?? '',
      consoleLimit: CONSOLE_LIMIT,
      memoryBytes: SCRIPT_MEMORY_BYTES,
      stackBytes: SCRIPT_STACK_BYTES,
    },
    // The thread is never given the workspace's environment (its secret key, its admin token).
    env: {},
    stdout: true,
    stderr: true,
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
  });
  // The thread's own stdout/stderr carry nothing of the script's (its console comes as messages); drain them.
  worker.stdout.resume();
  worker.stderr.resume();
  let printed = '';
  let truncated = false;
  const print = (text: string) => {
    if (truncated) return;
    const next = printed.length === 0 ? text : `${printed}\n${text}`;
    if (next.length > CONSOLE_LIMIT) {
      printed = `${next.slice(0, CONSOLE_LIMIT)}\n${TRUNCATED}`;
      truncated = true;
    } else printed = next;
  };
  return new Promise<ScriptOutcome>((resolve) => {
    let settled = false;
    const settle = (outcome: { ok: true; result: unknown } | { ok: false; message: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      resolve({ ...outcome, console: printed });
    };
    const timer = setTimeout(
      () => settle({ ok: false, message: `The script ran longer than ${timeoutMs} ms and was stopped` }),
      // The engine stops the script itself at the deadline; this is the second wall, for a thread
      // stuck in one long call of the engine.
      Math.max(0, deadline - Date.now()) + 200,
    );
    const onAbort = () => settle({ ok: false, message: 'The workspace stopped while the script ran' });
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: { type: string; text?: string; message?: string }) => {
      if (m.type === 'done') {
        let result: unknown = null;
        try {
          result = JSON.parse(m.text ?? 'null');
        } catch {}
        settle({ ok: true, result });
      } else if (m.type === 'failed') settle({ ok: false, message: m.message ?? 'The script failed' });
      else if (m.type === 'call') void answer(m.text ?? '');
      else if (m.type === 'console' && !settled) print(m.text ?? '');
    });
    worker.on('error', (error) =>
      settle({
        ok: false,
        message: /memory/i.test(error.message) ? 'The script ran out of memory' : 'The script failed',
      }),
    );
    worker.on('exit', () => settle({ ok: false, message: 'The script stopped without an answer' }));

    // The engine keeps its calls to MAX_CALLS_IN_FLIGHT; more at once means its queue was
    // subverted, and the run is stopped rather than the workspace flooded.
    let inFlight = 0;
    async function answer(text: string) {
      let id: unknown;
      if (++inFlight > MAX_CALLS_IN_FLIGHT) {
        settle({ ok: false, message: 'The script made too many calls at once' });
        return;
      }
      try {
        const call = JSON.parse(text) as { id: unknown; service: string; method: string; params: unknown[] };
        id = call.id;
        const service =
          call.service === 'svc' ? services.svc : call.service === 'http' ? services.http : undefined;
        const fn = service && Object.hasOwn(service, call.method) ? service[call.method] : undefined;
        if (!fn) throw new Error(`Unknown method ${call.service}.${call.method}`);
        const result = await fn(...(Array.isArray(call.params) ? call.params : []));
        reply(JSON.stringify({ id, result: result ?? null }));
      } catch (error) {
        const message = error instanceof Error ? error.message : 'The call failed';
        // What the call's own error says besides its message (the http service's answer), as data.
        const inner = (error as { innerError?: unknown } | null)?.innerError;
        reply(
          JSON.stringify({
            id,
            error: message,
            ...(inner && typeof inner === 'object' ? { innerError: inner } : {}),
          }),
        );
      }
    }
    function reply(text: string) {
      inFlight--;
      if (!settled) worker.postMessage({ type: 'reply', text });
    }
  });
}
