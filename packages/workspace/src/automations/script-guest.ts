// The JavaScript that runs inside a script's QuickJS context before the script: it builds
// `context.getService(...)`, `console` and the run itself out of four host functions that take
// one string each (send a call, print a line, report the result, report a failure). Answers come
// back as JSON text parsed in here, so only strings ever cross the boundary and no object made by
// the host is reachable from the script. It runs first, so it keeps its own references to the
// language functions it relies on (the script may replace JSON.parse or Object.keys for itself).
// Last it turns off building code from strings (eval, Function and its async and generator
// kinds), as node:vm's `codeGeneration: {strings: false}` did: the engine's own evaluation of the
// script (by the host, not through these) is unaffected.

import { ALIASES_KEY } from './entity-shapes.js';

/**
 * How many service calls of one run the workspace works on at once. Further calls wait inside the
 * engine (in its bounded memory), so a script firing a thousand `http.getAsync` at once holds at
 * most this many answers in the workspace.
 */
export const MAX_CALLS_IN_FLIGHT = 8;

export const SCRIPT_GUEST_PRELUDE = `(function (send, print, done, fail, svcMethods, consoleLimit, svcName, origin) {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const keys = Object.keys;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const Promise_ = Promise;
  const Error_ = Error;
  const record = Object.create.bind(null, null);
  const pending = record();
  let next = 0;
  let inFlight = 0;
  let waitingHead = null;
  let waitingTail = null;
  const start = (c) => {
    inFlight++;
    pending[c.id] = c;
    send(c.text);
  };
  const isArray = Array.isArray;
  // post: what the answer becomes before the script sees it
  const call = (service, method, params, post) => new Promise_((resolve, reject) => {
    const c = record();
    c.id = ++next;
    c.post = post;
    c.resolve = resolve;
    c.reject = reject;
    c.text = stringify({ id: c.id, service, method, params });
    c.next = null;
    if (inFlight < ${MAX_CALLS_IN_FLIGHT}) start(c);
    else {
      if (waitingTail) waitingTail.next = c;
      else waitingHead = c;
      waitingTail = c;
    }
  });
  const svc = {};
  for (const m of svcMethods.split(',')) svc[m] = (...params) => call('svc', m, params);
  // getSchema's typeObjects linked as the service's schema objects are: found by name, and each
  // field to its type's object, its holder's and the other side of its relation, with its
  // cardinality. The links are not enumerable, so the schema still prints and returns as JSON
  // (they make cycles).
  const hidden = (o, k, value) => defineProperty(o, k, { value, enumerable: false, configurable: true, writable: true });
  const linkSchema = (schema) => {
    if (!schema || !isArray(schema.typeObjects)) return schema;
    const byName = record();
    const byRelation = record();
    for (const t of schema.typeObjects) {
      byName[t.name] = t;
      const fields = record();
      for (const f of isArray(t.fieldObjects) ? t.fieldObjects : []) {
        fields[f.name] = f;
        if (typeof f.relation === 'string') (byRelation[f.relation] = byRelation[f.relation] || []).push(f);
      }
      hidden(t, 'fieldObjectsByName', fields);
    }
    hidden(schema, 'typeObjectsByName', byName);
    for (const t of schema.typeObjects)
      for (const f of isArray(t.fieldObjects) ? t.fieldObjects : []) {
        hidden(f, 'typeObject', byName[f.type] || null);
        hidden(f, 'holderTypeObject', t);
        const pair = typeof f.relation === 'string' ? byRelation[f.relation] : [];
        const related = pair.find((o) => o !== f) || null;
        hidden(f, 'relatedFieldObject', related);
        // how many holders one target has, to how many targets one holder has (a select: many)
        if (f.isRelation)
          f.cardinality = ':cardinality/' + (related && !related.isCollection ? 'one' : 'many') + '-to-' +
            (f.isCollection ? 'many' : 'one');
      }
    return schema;
  };
  if (hasOwn(svc, 'getSchema')) svc.getSchema = () => call('svc', 'getSchema', [], linkSchema);
  // x.id beside x.Id, as the service's own script template reads an entity (entity.id) and real
  // scripts its relation values: on entities, their relations' values and the entities read back.
  // Hidden as the other aliases are (not listed, not in JSON); a field keyed id keeps its key.
  const addId = (o) => {
    if (!o || typeof o !== 'object' || isArray(o) || typeof o.Id !== 'string' || hasOwn(o, 'id')) return;
    defineProperty(o, 'id', {
      get() { return this.Id; },
      set(v) { this.Id = v; },
      enumerable: false,
      configurable: true,
    });
  };
  const withIds = (e) => {
    if (isArray(e)) {
      for (const x of e) withIds(x);
      return e;
    }
    if (!e || typeof e !== 'object') return e;
    addId(e);
    // entity.Type beside entity.type, as real scripts read it (a field keyed Type keeps its key)
    if (typeof e.type === 'string' && !hasOwn(e, 'Type'))
      defineProperty(e, 'Type', { get() { return this.type; }, enumerable: false, configurable: true });
    for (const k of keys(e)) {
      const v = e[k];
      if (isArray(v)) for (const x of v) addId(x);
      else addId(v);
    }
    return e;
  };
  for (const m of ['getEntityById', 'getEntitiesByIds'])
    if (hasOwn(svc, m)) svc[m] = (...params) => call('svc', m, params, withIds);
  // An entity made or changed answers in full names (made['svc/id']); scripts also read its Id.
  const fullId = svcName + '/id';
  const withFullIds = (e) => {
    if (isArray(e)) {
      for (const x of e) withFullIds(x);
      return e;
    }
    if (e && typeof e === 'object' && typeof e[fullId] === 'string' && !hasOwn(e, 'Id'))
      defineProperty(e, 'Id', { get() { return this[fullId]; }, enumerable: false, configurable: true });
    addId(e);
    return e;
  };
  for (const m of ['createEntity', 'updateEntity', 'createEntityBatch', 'updateEntityBatch'])
    if (hasOwn(svc, m)) svc[m] = (...params) => call('svc', m, params, withFullIds);
  const http = {};
  for (const m of ['getAsync', 'postAsync', 'putAsync', 'deleteAsync'])
    http[m] = (url, options) => call('http', m, [url, options === undefined || options === null ? {} : options]);
  // utils, as the service's scripts have it: plain functions that answer at once.
  const encode = encodeURIComponent;
  const text = String;
  const random = Math.random;
  const floor = Math.floor;
  const hex = (n) => {
    let s = '';
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[floor(random() * 16)];
    return s;
  };
  const utils = {
    // The workspace's page of an entity, by its public id (the service's own app URL is its UI's).
    getEntityUrl: (type, publicId) =>
      origin + '/ui/entity?type=' + encode(text(type)) + '&public-id=' + encode(text(publicId)),
    getFileUrl: (secret) => origin + '/api/files/' + encode(text(secret)),
    uuid: () => hex(8) + '-' + hex(4) + '-4' + hex(3) + '-' + '89ab'[floor(random() * 4)] + hex(3) + '-' + hex(12),
  };
  const services = record();
  services[svcName] = freeze(svc);
  services.http = freeze(http);
  services.utils = freeze(utils);
  const ctx = freeze({
    getService(name) {
      if (hasOwn(services, name)) return services[name];
      // a script written for the other spelling of the service's namespace
      const other = name === 'svc' || name === 'fibery';
      throw new Error('Unknown service ' + name +
        (other ? ': this workspace names it ' + svcName + ' (its namespace setting)' : ''));
    },
  });
  const deliver = (json) => {
    const m = parse(json);
    const p = pending[m.id];
    if (!p) return;
    delete pending[m.id];
    inFlight--;
    if (waitingHead) {
      const c = waitingHead;
      waitingHead = c.next;
      if (!waitingHead) waitingTail = null;
      start(c);
    }
    if (typeof m.error === 'string') {
      const e = new Error_(m.error);
      if (m.innerError) e.innerError = m.innerError;
      p.reject(e);
    } else if (!p.post) p.resolve(m.result);
    else {
      // A script that replaced what the shaping uses (Array.prototype.find, ...) fails its own
      // call, not the delivery of every later answer.
      let shaped;
      try {
        shaped = p.post(m.result);
      } catch (e) {
        p.reject(e);
        return;
      }
      p.resolve(shaped);
    }
  };
  let printed = 0;
  const show = (v) => {
    if (typeof v === 'string') return v;
    if (v === undefined) return 'undefined';
    if (typeof v === 'function') return '[function]';
    if (v && typeof v === 'object' && typeof v.message === 'string' && typeof v.name === 'string')
      return v.name + ': ' + v.message;
    try {
      const json = stringify(v);
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
    text = String(text);
    printed += text.length + 1;
    print(text.slice(0, consoleLimit + 1));
  };
  const console = freeze({
    log: line('log'), info: line('info'), debug: line('debug'), warn: line('warn'), error: line('error'),
  });
  defineProperty(globalThis, 'console', { value: console, writable: false, configurable: false });
  const failText = (e) => {
    try {
      return e && typeof e.message === 'string' ? e.message : String(e);
    } catch (x) {
      return 'The script failed';
    }
  };
  // An entity's names without the app prefix stay usable where a label replaced them: hidden
  // aliases of the labelled keys (not listed by Object.keys or JSON.stringify).
  const hideAliases = (args) => {
    const list = args && Array.isArray(args.currentEntities) ? args.currentEntities : [];
    for (const e of list) {
      const aliases = e && e.${ALIASES_KEY};
      if (!aliases || typeof aliases !== 'object') continue;
      delete e.${ALIASES_KEY};
      for (const alias of keys(aliases)) {
        const key = aliases[alias];
        if (hasOwn(e, alias)) continue;
        defineProperty(e, alias, {
          get() { return this[key]; },
          set(v) { this[key] = v; },
          enumerable: false,
          configurable: true,
        });
      }
    }
    // after the fields' own aliases, which an id or Type alias never hides
    withIds(list);
    return args;
  };
  const run = (fn, argsJson) => {
    new Promise_((resolve) => resolve(fn(hideAliases(parse(argsJson)), ctx)))
      .then((v) => done(stringify(v === undefined ? null : v)))
      .then(undefined, (e) => fail(failText(e)));
  };

  const noStrings = (name) => {
    const blocked = function () {
      throw new EvalError('Code generation from strings disallowed for this context');
    };
    defineProperty(blocked, 'name', { value: name });
    return blocked;
  };
  const kinds = [
    ['Function', function () {}],
    ['AsyncFunction', async function () {}],
    ['GeneratorFunction', function* () {}],
    ['AsyncGeneratorFunction', async function* () {}],
  ];
  for (const [name, sample] of kinds) {
    const proto = getPrototypeOf(sample);
    const blocked = noStrings(name);
    blocked.prototype = proto;
    defineProperty(proto, 'constructor', { value: blocked, writable: false, configurable: false });
    if (name === 'Function')
      defineProperty(globalThis, 'Function', { value: blocked, writable: false, configurable: false });
  }
  defineProperty(globalThis, 'eval', { value: noStrings('eval'), writable: false, configurable: false });

  return freeze({ deliver, run });
})`;
