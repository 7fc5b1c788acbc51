// The code of the worker thread a script runs in, as a string (new Worker(code, {eval: true})),
// so it runs the same from TypeScript sources and from dist/. The thread does not run the script
// itself: it starts a QuickJS engine compiled to WebAssembly and runs the script in there. The
// script's heap is inside that engine's WebAssembly memory, and the only ways out of it are the
// four string-taking functions the thread hands to the guest prelude (script-guest.ts). The
// memory limit is that WebAssembly memory's maximum size (strings, objects and ArrayBuffers
// alike live in it) and the time limit an interrupt check of the engine while it runs;
// the thread is the second wall (its own event loop, terminated by the host when time is up,
// created with an empty environment).

export const SCRIPT_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData: d } = require('node:worker_threads');
const { newQuickJSWASMModuleFromVariant, newVariant } = require(d.corePath);
// The engine's whole memory (its heap, ArrayBuffers included, its stack and its own data) is this
// WebAssembly memory, which cannot grow past the limit: an allocation beyond it fails inside the
// engine as "out of memory". The engine's own byte limit alone does not bound a total (under
// Emscripten it counts allocations, not their sizes), only single allocations.
const PAGE = 64 * 1024;
const memory = new WebAssembly.Memory({ initial: 256, maximum: Math.max(256, Math.floor(d.memoryBytes / PAGE)) });
const variant = newVariant(require(d.variantPath).default, { wasmMemory: memory, wasmModule: d.wasmModule });

let over = false;
const post = (m) => {
  if (over) return;
  if (m.type === 'done' || m.type === 'failed') over = true;
  parentPort.postMessage(m);
};
const timeUp = () => Date.now() >= d.deadline;
const failWith = (message) =>
  post({
    type: 'failed',
    message: timeUp()
      ? 'The script ran longer than ' + d.timeoutMs + ' ms and was stopped'
      : message === 'out of memory'
        ? 'The script ran out of memory'
        : String(message).slice(0, 2000),
  });

// The engine itself failing (the thread's own stack exhausted by the engine's frames) fails the
// run; its message only when it is that, never a host stack trace.
const hostError = (error) =>
  error instanceof RangeError && /call stack/.test(error.message) ? 'stack overflow' : 'The script failed';

(async () => {
  const QuickJS = await newQuickJSWASMModuleFromVariant(variant);
  const runtime = QuickJS.newRuntime();
  runtime.setMemoryLimit(d.memoryBytes);
  runtime.setMaxStackSize(d.stackBytes);
  runtime.setInterruptHandler(timeUp);
  const vm = runtime.newContext();
  const errorText = (handle) => {
    let e;
    try { e = vm.dump(handle); } catch { e = undefined; }
    try { handle.dispose(); } catch {}
    return e && typeof e.message === 'string' ? e.message : typeof e === 'string' ? e : 'The script failed';
  };
  /** the value of an evaluation or call, or undefined when it threw (then the run has failed) */
  const valueOf = (result) => {
    if (!result.error) return result.value;
    failWith(errorText(result.error));
    return undefined;
  };
  const pump = () => {
    const jobs = runtime.executePendingJobs();
    if (jobs.error) failWith(errorText(jobs.error));
  };
  const hostFunction = (name, take) =>
    vm.newFunction(name, (arg) => {
      take(arg !== undefined && vm.typeof(arg) === 'string' ? vm.getString(arg) : '');
    });
  const send = hostFunction('send', (text) => post({ type: 'call', text }));
  const print = hostFunction('print', (text) => post({ type: 'console', text }));
  const done = hostFunction('done', (text) => post({ type: 'done', text }));
  const fail = hostFunction('fail', (text) => failWith(text));

  const makeBridge = valueOf(vm.evalCode(d.prelude, 'bridge.js'));
  if (!makeBridge) return;
  const bridge = valueOf(
    vm.callFunction(makeBridge, vm.undefined, send, print, done, fail, vm.newString(d.svcMethods), vm.newNumber(d.consoleLimit), vm.newString(d.svcName), vm.newString(d.origin)),
  );
  if (!bridge) return;
  const deliver = vm.getProp(bridge, 'deliver');
  const run = vm.getProp(bridge, 'run');
  const fn = valueOf(vm.evalCode('(async function (args, context) {\\n' + d.code + '\\n})', 'automation-script.js'));
  if (!fn) return;
  parentPort.on('message', (m) => {
    if (over || !m || m.type !== 'reply') return;
    try {
      const text = vm.newString(String(m.text));
      const answered = valueOf(vm.callFunction(deliver, vm.undefined, text));
      text.dispose();
      if (answered) answered.dispose();
      if (!over) pump();
    } catch (error) {
      failWith(hostError(error));
    }
  });
  if (valueOf(vm.callFunction(run, vm.undefined, fn, vm.newString(d.argsJson))) && !over) pump();
})().catch((error) => failWith(hostError(error)));
`;
