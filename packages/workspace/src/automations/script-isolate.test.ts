// A script runs in a QuickJS engine of its own: the classic ways out of a node:vm sandbox find no
// host object to climb, a loop is stopped at the time limit, allocations stop at the memory limit
// (ArrayBuffers included) without the workspace's memory growing past it, and the engine starts
// clean for every run.
import { describe, expect, it } from 'vitest';
import { MAX_CALLS_IN_FLIGHT } from './script-guest.js';
import { runScript, SCRIPT_MEMORY_BYTES, type ServiceImpl } from './script-runner.js';
import { plantSecrets } from '../../test/support/planted-secrets.js';

const SECRET = 'isolate-test-secret-key-0123456789abcdef';
const ADMIN = 'isolate-test-admin-token-fedcba9876543210';
const none = { svc: {}, http: {} };

plantSecrets(SECRET, ADMIN);

const leaks = (outcome: unknown) => {
  const text = JSON.stringify(outcome);
  return text.includes(SECRET) || text.includes(ADMIN);
};

describe('script isolate', () => {
  it("the node:vm escape through a rejected import's error finds no process", async () => {
    const outcome = await runScript(
      `try { await import('node:fs'); return 'imported'; }
       catch (e) {
         const p = e.constructor.constructor('return process')();
         return p.env.WEFT_SECRET_KEY + ' ' + p.env.WEFT_ADMIN_TOKEN;
       }`,
      {},
      none,
      5000,
    );
    expect(outcome).toMatchObject({
      ok: false,
      message: 'Code generation from strings disallowed for this context',
    });
    expect(leaks(outcome)).toBe(false);
  });

  it('constructor chains, Function, eval, import(), and probes of the global object reach nothing of the host', async () => {
    const svc: ServiceImpl = {
      async getEntityById() {
        return { Name: 'x' };
      },
    };
    const outcome = await runScript(
      `const tries = {};
       const attempt = (name, f) => {
         try { const v = f(); tries[name] = typeof v === 'string' ? v : typeof v; }
         catch (e) { tries[name] = 'threw ' + (e && e.name); }
       };
       const svc = context.getService('svc');
       const http = context.getService('http');
       const sources = { context, getService: context.getService, svc, method: svc.getEntityById,
         http, get: http.getAsync, console, log: console.log, args, entity: args.currentEntities[0] };
       for (const [name, f] of Object.entries(sources)) {
         attempt(name + '.constructor.constructor', () => f.constructor.constructor('return process')());
         attempt(name + '.__proto__.constructor', () => Object.getPrototypeOf(f).constructor('return globalThis.process')());
       }
       attempt('Function', () => Function('return process')());
       attempt('new Function', () => new Function('return this')());
       attempt('eval', () => eval('process'));
       attempt('indirect eval', () => (0, eval)('this'));
       attempt('async ctor', () => (async () => {}).constructor('return process'));
       attempt('generator ctor', () => (function* () {}).constructor('yield process'));
       attempt('answer ctor', () => ({}).constructor.constructor('return process')());
       let imported;
       try { await import('node:child_process'); imported = 'imported'; } catch (e) { imported = 'rejected'; }
       let required;
       try { required = typeof require('node:fs'); } catch (e) { required = 'threw ' + e.name; }
       const answer = await svc.getEntityById('t/t', 'id');
       attempt('reply ctor', () => answer.constructor.constructor('return process')());
       const globals = Object.getOwnPropertyNames(globalThis);
       return { tries, imported, required, globals,
         typeofs: [typeof process, typeof require, typeof module, typeof Buffer, typeof fetch,
           typeof setTimeout, typeof WebAssembly, typeof std, typeof os, typeof globalThis.process] };`,
      { currentEntities: [{ Name: 'Book', Id: 'b1' }] },
      { svc, http: {} },
      10_000,
    );
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    const result = (outcome as { result: Record<string, any> }).result;
    // Every way to a Function constructor meets the one that refuses strings; the rest find no function.
    for (const [name, got] of Object.entries(result.tries as Record<string, string>))
      expect([name, got]).toEqual([
        name,
        name.endsWith('__proto__.constructor')
          ? expect.stringMatching(/^threw (EvalError|TypeError)$/)
          : 'threw EvalError',
      ]);
    expect(result.imported).toBe('rejected');
    expect(result.required).toBe('threw ReferenceError');
    expect(result.typeofs).toEqual(Array(10).fill('undefined'));
    // The global object holds only the language's own names and the script's console.
    const language = new Set(
      (
        'Error EvalError RangeError ReferenceError SyntaxError TypeError URIError InternalError AggregateError ' +
        'Array Object Function Iterator parseInt parseFloat isNaN isFinite decodeURI decodeURIComponent ' +
        'encodeURI encodeURIComponent escape unescape Infinity NaN undefined eval Number Boolean String Math ' +
        'Reflect Symbol globalThis BigInt Date RegExp JSON Proxy Map Set WeakMap WeakSet ArrayBuffer ' +
        'SharedArrayBuffer Uint8ClampedArray Int8Array Uint8Array Int16Array Uint16Array Int32Array ' +
        'Uint32Array BigInt64Array BigUint64Array Float16Array Float32Array Float64Array DataView Promise ' +
        'WeakRef FinalizationRegistry console'
      ).split(' '),
    );
    expect((result.globals as string[]).filter((n) => !language.has(n))).toEqual([]);
    expect(leaks(outcome)).toBe(false);
  });

  it('polluting prototypes in the script changes nothing in the workspace, nor in the next run', async () => {
    const received: unknown[] = [];
    const svc: ServiceImpl = {
      async createEntity(...params) {
        received.push(params);
        return JSON.parse('{"__proto__": {"fromHost": true}, "ok": 1}');
      },
    };
    const outcome = await runScript(
      `Object.prototype.polluted = 'yes';
       Array.prototype.polluted = 'yes';
       JSON.stringify = () => '{"id":1,"service":"svc","method":"deleteEntity","params":[]}';
       const svc = context.getService('svc');
       try { svc.createEntity = () => 'replaced'; } catch (e) {}
       try { Object.getPrototypeOf(svc).hijacked = true; } catch (e) {}
       const answer = await svc.createEntity('t/t', JSON.parse('{"__proto__": {"admin": true}, "constructor": {"prototype": {"admin": true}}}'));
       return { own: Object.keys(answer), fromHost: answer.fromHost === true };`,
      {},
      { svc, http: {} },
      5000,
    );
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    expect(received).toHaveLength(1);
    const host = {} as Record<string, unknown>;
    expect([
      host.polluted,
      host.admin,
      host.hijacked,
      ([] as unknown as Record<string, unknown>).polluted,
    ]).toEqual([undefined, undefined, undefined, undefined]);
    // The next run is a new engine: nothing the last one did to its prototypes is there.
    const next = await runScript(
      `return [({}).polluted, [].polluted, typeof JSON.stringify({}), JSON.stringify({ a: 1 })];`,
      {},
      none,
      5000,
    );
    expect(next).toMatchObject({ ok: true, result: [null, null, 'string', '{"a":1}'] });
  });

  it('a script that breaks what its answers are shaped with fails that call, and later calls are answered', async () => {
    const svc: ServiceImpl = {
      async getSchema() {
        return {
          typeObjects: [{ name: 't/t', fieldObjects: [{ name: 't/a', relation: 'r', isRelation: true }] }],
        };
      },
      async createEntity() {
        return { 'svc/id': 'made' };
      },
    };
    const outcome = await runScript(
      `Array.prototype.find = () => { throw new Error('find is gone'); };
       const svc = context.getService('svc');
       let failed;
       try { await svc.getSchema(); } catch (e) { failed = e.message; }
       const made = await svc.createEntity('t/t', {});
       return { failed, made: made.Id };`,
      {},
      { svc, http: {} },
      5000,
    );
    expect(outcome).toMatchObject({ ok: true, result: { failed: 'find is gone', made: 'made' } });
  });

  it('a script that loops forever, awaits forever in a loop or backtracks a regular expression forever is stopped at its time limit', async () => {
    for (const code of [
      "return /(a|b)*c/.test('ab'.repeat(100000));",
      'while (true) {}',
      'for (;;) await null;',
      'const f = () => Promise.resolve().then(f); f(); await new Promise(() => {});',
    ]) {
      const outcome = await runScript(code, {}, none, 300);
      expect([code, outcome]).toEqual([
        code,
        { ok: false, message: 'The script ran longer than 300 ms and was stopped', console: '' },
      ]);
    }
    // Deep recursion is the script's own error, not the thread's.
    const deep = await runScript('const f = (n) => f(n + 1) + 1; return f(0);', {}, none, 5000);
    expect(deep).toMatchObject({ ok: false, message: expect.stringMatching(/stack/i) });
  });

  it('a memory bomb (strings, ArrayBuffers, objects) stops at the memory limit and the workspace does not grow past it', async () => {
    const bombs = [
      `const kept = []; for (let i = 0; ; i++) kept.push('x'.repeat(1024 * 1024) + i);`,
      `let s = 'x'; for (;;) s = (s + s).split('').join('');`,
      `const kept = []; for (;;) kept.push(new ArrayBuffer(1024 * 1024));`,
      `const kept = []; for (;;) kept.push(new Uint8Array(8 * 1024 * 1024).fill(1));`,
      `return new ArrayBuffer(1024 * 1024 * 1024).byteLength;`,
      `const kept = []; for (let i = 0; ; i++) kept.push({ i, s: 'n' + i });`,
    ];
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      for (const code of bombs) {
        const outcome = await runScript(code, {}, none, 30_000);
        expect([code, outcome]).toEqual([
          code,
          { ok: false, message: 'The script ran out of memory', console: '' },
        ]);
      }
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    // The engine's heap plus a thread's own overhead; a bomb that got past the limit would add
    // gigabytes.
    expect(peak - before).toBeLessThan(SCRIPT_MEMORY_BYTES + 96 * 1024 * 1024);

    // A script that catches the failed allocation goes on within the limit.
    const caught = await runScript(
      `try { const kept = []; for (;;) kept.push(new ArrayBuffer(1024 * 1024)); } catch (e) { return e.message; }`,
      {},
      none,
      30_000,
    );
    expect(caught).toMatchObject({ ok: true, result: 'out of memory' });
  }, 120_000);

  it('one huge console line is cut to the console limit inside the engine', async () => {
    const outcome = await runScript(
      `console.log('y'.repeat(8 * 1024 * 1024)); return 'printed';`,
      {},
      none,
      30_000,
    );
    expect(outcome.ok).toBe(true);
    expect(outcome.console.length).toBeLessThan(70 * 1024);
    expect(outcome.console.startsWith('yyyy')).toBe(true);
  });

  it('a script firing many calls at once has only a few in the workspace at a time, and all answered', async () => {
    // The workspace holds every call until no more come for a moment, so whatever the engine
    // lets out at once is seen at once.
    let now = 0;
    let most = 0;
    let waiting: Array<() => void> = [];
    let idle: NodeJS.Timeout | undefined;
    const svc: ServiceImpl = {
      async getEntityById(_type, id) {
        most = Math.max(most, ++now);
        const gate = new Promise<void>((r) => waiting.push(r));
        clearTimeout(idle);
        idle = setTimeout(() => {
          for (const release of waiting) release();
          waiting = [];
        }, 10);
        await gate;
        now--;
        return { id };
      },
    };
    const outcome = await runScript(
      `const svc = context.getService('svc');
       const ids = Array.from({ length: 50 }, (_, i) => 'e' + i);
       const got = await Promise.all(ids.map((id) => svc.getEntityById('t/t', id)));
       return got.map((e) => e.id).join(',') === ids.join(',');`,
      {},
      { svc, http: {} },
      20_000,
    );
    expect(outcome).toMatchObject({ ok: true, result: true });
    expect(most).toBeLessThanOrEqual(MAX_CALLS_IN_FLIGHT);
  });
});
