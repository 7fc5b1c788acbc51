// The code of the worker thread a script runs in, as a string (new Worker(code, {eval: true})),
// so it runs the same from TypeScript sources and from dist/. Inside, the script runs in a fresh
// node:vm context: its globals are only the language's own (no process, require, fetch, timers).
// Only strings cross between the script's context and the thread: the bridge functions are made
// inside the context and close over one host function that takes a string, and answers come back
// as JSON text parsed inside the context, so no host object (whose constructor would lead back to
// the thread's globals) is ever reachable from the script.

export const SCRIPT_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const vm = require('node:vm');
const context = vm.createContext(Object.create(null), {
  name: 'automation script',
  codeGeneration: { strings: false, wasm: false },
});
const makeBridge = vm.runInContext(\`(function (send, svcMethods) {
  const pending = new Map();
  let next = 0;
  const call = (service, method, params) => new Promise((resolve, reject) => {
    const id = ++next;
    pending.set(id, { resolve, reject });
    send(JSON.stringify({ id, service, method, params }));
  });
  const svc = {};
  for (const m of svcMethods.split(',')) svc[m] = (...params) => call('svc', m, params);
  const http = {
    getAsync: (url, options) => call('http', 'getAsync', [url, options ?? {}]),
    postAsync: (url, options) => call('http', 'postAsync', [url, options ?? {}]),
  };
  const services = { svc: Object.freeze(svc), http: Object.freeze(http) };
  const ctx = Object.freeze({
    getService(name) {
      if (!Object.prototype.hasOwnProperty.call(services, name)) throw new Error('Unknown service ' + name);
      return services[name];
    },
  });
  const deliver = (json) => {
    const m = JSON.parse(json);
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (typeof m.error === 'string') p.reject(new Error(m.error));
    else p.resolve(m.result);
  };
  const finish = (v) => JSON.stringify(v === undefined ? null : v);
  const failText = (e) => (e && typeof e.message === 'string' ? e.message : String(e));
  return { ctx, deliver, finish, failText, parse: (s) => JSON.parse(s) };
})\`, context);
const hostSend = (text) => parentPort.postMessage({ type: 'call', text: String(text) });
const bridge = makeBridge(hostSend, workerData.svcMethods);
parentPort.on('message', (m) => { if (m && m.type === 'reply') bridge.deliver(String(m.text)); });
(async () => {
  try {
    const fn = vm.runInContext('(async function (args, context) {\\n' + workerData.code + '\\n})', context, {
      filename: 'automation-script.js',
      timeout: workerData.timeoutMs,
    });
    const result = await fn(bridge.parse(workerData.argsJson), bridge.ctx);
    parentPort.postMessage({ type: 'done', text: bridge.finish(result) });
  } catch (error) {
    let message;
    try { message = bridge.failText(error); } catch { message = 'The script failed'; }
    parentPort.postMessage({ type: 'failed', message: String(message).slice(0, 2000) });
  }
})();
`;
