// The code of the worker thread a script runs in, as a string (new Worker(code, {eval: true})),
// so it runs the same from TypeScript sources and from dist/. Inside, the script runs in a fresh
// node:vm context: its globals are only the language's own (no process, require, fetch, timers).
// Only strings cross between the script's context and the thread: the bridge functions are made
// inside the context and close over one host function that takes a string, and answers come back
// as JSON text parsed inside the context, so no host object (whose constructor would lead back to
// the thread's globals) is ever reachable from the script. The script's console is made the
// same way: each line is formatted to a string inside the context and posted to the host, which
// keeps it (bounded) with the run; lines past the limit are not even posted.

import { ALIASES_KEY } from './entity-shapes.js';

export const SCRIPT_WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const vm = require('node:vm');
const context = vm.createContext(Object.create(null), {
  name: 'automation script',
  codeGeneration: { strings: false, wasm: false },
});
const makeBridge = vm.runInContext(\`(function (send, print, svcMethods, consoleLimit) {
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
  let printed = 0;
  const show = (v) => {
    if (typeof v === 'string') return v;
    if (v === undefined) return 'undefined';
    if (typeof v === 'function') return '[function]';
    if (v && typeof v === 'object' && typeof v.message === 'string' && typeof v.name === 'string')
      return v.name + ': ' + v.message;
    try {
      const json = JSON.stringify(v);
      return json === undefined ? String(v) : json;
    } catch (e) {
      return String(v);
    }
  };
  const line = (level) => (...values) => {
    if (printed > consoleLimit) return;
    let text;
    try { text = values.map(show).join(' '); } catch (e) { text = '[unprintable]'; }
    if (level !== 'log' && level !== 'info' && level !== 'debug') text = '[' + level + '] ' + text;
    printed += text.length + 1;
    print(String(text).slice(0, consoleLimit + 1));
  };
  const console = Object.freeze({
    log: line('log'), info: line('info'), debug: line('debug'), warn: line('warn'), error: line('error'),
  });
  Object.defineProperty(globalThis, 'console', { value: console, writable: false, configurable: false });
  const finish = (v) => JSON.stringify(v === undefined ? null : v);
  const failText = (e) => (e && typeof e.message === 'string' ? e.message : String(e));
  // An entity's names without the app prefix stay usable where a label replaced them: hidden
  // aliases of the labelled keys (not listed by Object.keys or JSON.stringify).
  const hideAliases = (args) => {
    const list = args && Array.isArray(args.currentEntities) ? args.currentEntities : [];
    for (const e of list) {
      const aliases = e && e.${ALIASES_KEY};
      if (!aliases || typeof aliases !== 'object') continue;
      delete e.${ALIASES_KEY};
      for (const alias of Object.keys(aliases)) {
        const key = aliases[alias];
        if (Object.prototype.hasOwnProperty.call(e, alias)) continue;
        Object.defineProperty(e, alias, {
          get() { return this[key]; },
          set(v) { this[key] = v; },
          enumerable: false,
          configurable: true,
        });
      }
    }
    return args;
  };
  return { ctx, deliver, finish, failText, parse: (s) => hideAliases(JSON.parse(s)) };
})\`, context);
const hostSend = (text) => parentPort.postMessage({ type: 'call', text: String(text) });
const hostPrint = (text) => parentPort.postMessage({ type: 'console', text: String(text) });
const bridge = makeBridge(hostSend, hostPrint, workerData.svcMethods, workerData.consoleLimit);
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
