import type { Namespace } from './namespace.js';

// Renames the service's namespace (`svc` <-> `fibery`) where a *name* stands in what the data API
// takes and answers, and nowhere else. A name is: a command name (`svc.entity/query`); a key that
// is a field name or a meta key (`svc/id`, `svc/deleted?`); and a string that names a type, a field
// or a meta key where the protocol puts one (`svc/type` and `svc/name` in schema objects, `type`,
// `field`, `q/from`, field paths in `q/select`, `q/where` and `q/order-by`, `name`, `holder-type`,
// `from-name`, `to-name` and `key` of schema commands, mixin names). Everything else is data and
// stays as it is: a text value "svc/x", query params, the value of a primitive field (a JSON value
// `{"svc/x": 1}` included, when the field lookup says the field is primitive), aliases.
//
// The codec walks one way (from -> to). The workspace builds one per direction for a setting other
// than svc; with svc it builds none, so the default costs nothing.
//
// Why a codec at the boundaries rather than the word threaded through as a constant: weft spells
// `svc/` some 650 times in 50-odd files (tables, the query compiler, builtins, the app host,
// scripts, tests), and every one would have to take the setting and keep taking it; one database
// would hold different names under different settings. Renaming at the HTTP boundary (and in the
// client, and in webhook deliveries) keeps one spelling inside, touches nothing on the default
// path, and puts the rules of what is a name in one place, where they can be property-tested.

/** What a field holds, its type and field named as weft names them inside (svc spelling). */
export type FieldInfo = { kind: 'value' } | { kind: 'ref'; target: string | undefined };

/** The field `field` of type `type` (both in svc spelling), or undefined when unknown. */
export type FieldLookup = (type: string, field: string) => FieldInfo | undefined;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Primitive field types, svc spelling: a field of one of these holds data, never names. */
const PRIMITIVES = new Set(
  [
    'int',
    'decimal',
    'bool',
    'text',
    'email',
    'emoji',
    'date',
    'date-time',
    'date-range',
    'date-time-range',
    'location',
    'uuid',
    'rank',
    'json-value',
  ].map((t) => `svc/${t}`),
);

// Keys of schema command args whose string value is a type, field or meta key name.
const NAME_ARGS = new Set([
  'svc/name',
  'svc/type',
  'svc/holder-type',
  'name',
  'holder-type',
  'from-name',
  'to-name',
  'key',
]);
// Keys of types and fields (in commands and in the schema answer) whose value is a name.
const NAME_KEYS = new Set(['svc/name', 'svc/type', 'svc/holder-type']);

/** An aggregate select (`[q/count, [collection, field]]`): its key is an alias, not a field. */
const isAggregate = (v: unknown): v is unknown[] =>
  Array.isArray(v) && typeof v[0] === 'string' && v[0].startsWith('q/');

/** Fields made by schema commands earlier in the same request, which no lookup knows yet. */
type Overlay = Map<string, Map<string, FieldInfo>>;

export class NamespaceCodec {
  readonly #prefixes: [string, string];
  readonly #text: RegExp;
  readonly #lookup: FieldLookup | undefined;
  /** by type (svc spelling, '' for unknown), each key's new name and field */
  readonly #keys = new Map<string, Map<string, [string, FieldInfo | undefined]>>();

  constructor(
    readonly from: Namespace,
    readonly to: Namespace,
    lookup?: FieldLookup,
  ) {
    if (from === to) throw new Error('a namespace codec needs two different namespaces');
    this.#prefixes = [`${from}/`, `${from}.`];
    // a name inside a message: the namespace word right before `/` or `.` and a name character,
    // not inside a longer word or path
    this.#text = new RegExp(`(?<![\\w~./-])${from}(?=[./][\\w~?-])`, 'g');
    this.#lookup = lookup;
  }

  /** The same codec with a field lookup (the workspace's catalog). */
  withLookup(lookup: FieldLookup | undefined): NamespaceCodec {
    return new NamespaceCodec(this.from, this.to, lookup);
  }

  /** `name` in the other namespace when it is in this codec's `from` namespace. */
  name = (name: unknown): unknown => {
    if (typeof name !== 'string') return name;
    const [slash, dot] = this.#prefixes;
    return name.startsWith(slash) || name.startsWith(dot) ? this.to + name.slice(this.from.length) : name;
  };

  /** The names in a message (an error's text) renamed. */
  text(message: string): string {
    return message.replace(this.#text, this.to);
  }

  /** A body of POST /api/commands: an array of commands, or one command. */
  commands(body: unknown): unknown {
    const overlay: Overlay = new Map();
    if (Array.isArray(body)) return body.map((c) => this.#command(c, overlay));
    return isObject(body) ? this.#command(body, overlay) : body;
  }

  /**
   * The answer to `svcCommands` (the request's commands as weft names them: svc spelling): an
   * array of results, one result (a single command), or an error body.
   */
  results(svcCommands: unknown, answer: unknown): unknown {
    const overlay: Overlay = new Map();
    learn(svcCommands, overlay);
    if (Array.isArray(answer)) {
      const commands = Array.isArray(svcCommands) ? svcCommands : [];
      return answer.map((r, i) => this.#element(commands[i], r, overlay));
    }
    if (isObject(answer) && typeof answer.success !== 'boolean') return this.errorBody(answer);
    return this.#element(Array.isArray(svcCommands) ? svcCommands[0] : svcCommands, answer, overlay);
  }

  /** An error body `{message, ...}`: the names in its message. */
  errorBody(body: unknown): unknown {
    return isObject(body) && typeof body.message === 'string'
      ? { ...body, message: this.text(body.message) }
      : body;
  }

  /** The schema object (`…schema/query`'s result). */
  schema(schema: unknown): unknown {
    return this.#schemaObject(schema);
  }

  /** An entity of type `svcType` (or one whose type is unknown): keys renamed, data kept. */
  entity(svcType: string | undefined, entity: unknown, overlay?: Overlay): unknown {
    if (!isObject(entity)) return entity;
    // rows of one type repeat the same keys: each key's new name and field is found once
    const keys = this.#keysOf(svcType);
    const made = svcType === undefined ? undefined : overlay?.get(svcType);
    const out: Obj = {};
    for (const key of Object.keys(entity)) {
      const value = entity[key];
      let known = keys.get(key);
      if (!known) {
        const field = svcType === undefined ? undefined : this.#lookup?.(svcType, this.#svc(key) as string);
        known = [this.name(key) as string, field];
        keys.set(key, known);
      }
      const info = made?.get(this.#svc(key) as string) ?? known[1];
      out[known[0]] = info?.kind === 'value' ? value : this.#refValue(info?.target, value, overlay);
    }
    return out;
  }

  #keysOf(svcType: string | undefined): Map<string, [string, FieldInfo | undefined]> {
    let keys = this.#keys.get(svcType ?? '');
    if (!keys) {
      keys = new Map();
      this.#keys.set(svcType ?? '', keys);
    }
    return keys;
  }

  /** A webhook delivery: its effects' command names, types, fields and values' keys. */
  delivery(body: unknown): unknown {
    if (!isObject(body) || !Array.isArray(body.effects)) return body;
    return { ...body, effects: body.effects.map((e) => this.#effect(e)) };
  }

  /**
   * A view, or the params or result of a view call: every key is a name or the caller's word,
   * never a value (a view's name is its title).
   */
  view(value: unknown): unknown {
    return this.#metaValue(value);
  }

  /** A webhook record (or the body that creates one): its `type`. */
  webhook(webhook: unknown): unknown {
    return isObject(webhook) && typeof webhook.type === 'string'
      ? { ...webhook, type: this.name(webhook.type) }
      : webhook;
  }

  // --- commands ---

  #command(command: unknown, overlay: Overlay): unknown {
    if (!isObject(command)) return command;
    const out: Obj = { ...command, command: this.name(command.command) };
    const svcName = this.#svc(command.command);
    if (isObject(command.args)) out.args = this.#args(svcName, command.args, overlay);
    // what this command creates is known to the commands after it in the same request
    learn(this.from === 'svc' ? command : out, overlay);
    return out;
  }

  #args(command: unknown, args: Obj, overlay: Overlay): Obj {
    switch (command) {
      case 'svc.command/batch':
      case 'svc.schema/batch':
        return Array.isArray(args.commands)
          ? { ...args, commands: args.commands.map((c) => this.#command(c, overlay)) }
          : args;
      case 'svc.entity/query':
        return { ...args, query: this.#query(args.query, undefined, overlay) };
      case 'svc.entity/create':
      case 'svc.entity/update':
      case 'svc.entity/delete': {
        const type = this.#svcString(args.type);
        return { ...args, type: this.name(args.type), entity: this.entity(type, args.entity, overlay) };
      }
      case 'svc.entity.batch/create':
      case 'svc.entity.batch/delete':
      case 'svc.entity.batch/create-or-update': {
        const type = this.#svcString(args.type);
        return {
          ...args,
          type: this.name(args.type),
          entities: Array.isArray(args.entities)
            ? args.entities.map((e) => this.entity(type, e, overlay))
            : args.entities,
          ...('conflict-field' in args ? { 'conflict-field': this.name(args['conflict-field']) } : {}),
        };
      }
      case 'svc.entity/add-collection-items':
      case 'svc.entity/remove-collection-items': {
        const type = this.#svcString(args.type);
        const field = this.#svcString(args.field);
        const target = type && field ? this.#targetOf(this.#field(type, field, overlay)) : undefined;
        return {
          ...args,
          type: this.name(args.type),
          field: this.name(args.field),
          entity: this.entity(type, args.entity, overlay),
          items: Array.isArray(args.items)
            ? args.items.map((item) => this.entity(target, item, overlay))
            : args.items,
        };
      }
      // A space's lifecycle: the app's keys and the space's id key are names; their values data.
      case 'svc.app/save':
        return isObject(args.app) ? { ...args, app: this.#renameKeys(args.app) } : args;
      case 'svc.app/update':
      case 'svc.app/uninstall':
      case 'svc.app/delete':
        return this.#renameKeys(args);
      // A workflow's states: their keys are names (`svc/id`), their values data.
      case 'workflow/install':
        return Array.isArray(args.states)
          ? { ...args, states: args.states.map((st) => (isObject(st) ? this.#renameKeys(st) : st)) }
          : args;
      default:
        return typeof command === 'string' &&
          (command.startsWith('schema.') || command === 'svc.app/install-mixins')
          ? this.#schemaArgs(args)
          : args;
    }
  }

  #schemaArgs(args: Obj): Obj {
    const out: Obj = {};
    for (const [key, value] of Object.entries(args)) {
      const svcKey = this.#svc(key);
      let mapped = value;
      if (NAME_ARGS.has(svcKey as string)) mapped = this.name(value);
      else if (svcKey === 'svc/fields' && Array.isArray(value))
        mapped = value.map((f) => this.#schemaObject(f));
      else if (svcKey === 'svc/meta') mapped = this.#meta(value);
      else if (key === 'value') mapped = this.#metaValue(value);
      else if (key === 'types' && isObject(value)) mapped = this.#mixinsByType(value);
      out[this.name(key) as string] = mapped;
    }
    return out;
  }

  /** A schema, a type or a field: names in their name keys, and their fields, types and meta. */
  #schemaObject(value: unknown): unknown {
    if (!isObject(value)) return value;
    const out: Obj = {};
    for (const [key, v] of Object.entries(value)) {
      const svcKey = this.#svc(key) as string;
      let mapped = v;
      if (NAME_KEYS.has(svcKey)) mapped = this.name(v);
      else if ((svcKey === 'svc/fields' || svcKey === 'svc/types') && Array.isArray(v))
        mapped = v.map((x) => this.#schemaObject(x));
      else if (svcKey === 'svc/meta') mapped = this.#meta(v);
      out[this.name(key) as string] = mapped;
    }
    return out;
  }

  #meta(meta: unknown): unknown {
    if (!isObject(meta)) return meta;
    const out: Obj = {};
    for (const [key, value] of Object.entries(meta)) {
      // installed mixins: their names are keys
      out[this.name(key) as string] =
        key === 'app/mixins' && isObject(value) ? this.#renameKeys(value) : this.#metaValue(value);
    }
    return out;
  }

  /** A meta value (a default `{svc/id: …}`): keys are names, strings are data. */
  #metaValue(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.#metaValue(v));
    if (!isObject(value)) return value;
    const out: Obj = {};
    for (const [key, v] of Object.entries(value)) out[this.name(key) as string] = this.#metaValue(v);
    return out;
  }

  #mixinsByType(types: Obj): Obj {
    const out: Obj = {};
    for (const [type, mixins] of Object.entries(types)) {
      out[this.name(type) as string] = Array.isArray(mixins) ? mixins.map(this.name) : mixins;
    }
    return out;
  }

  #renameKeys(value: Obj): Obj {
    const out: Obj = {};
    for (const [key, v] of Object.entries(value)) out[this.name(key) as string] = v;
    return out;
  }

  // --- queries ---

  #query(query: unknown, svcType: string | undefined, overlay: Overlay): unknown {
    if (!isObject(query)) return query;
    const type = this.#svcString(query['q/from']) ?? svcType;
    const out: Obj = { ...query };
    if ('q/from' in query) out['q/from'] = this.name(query['q/from']);
    if ('q/select' in query) out['q/select'] = this.#select(query['q/select'], type, overlay);
    if ('q/where' in query) out['q/where'] = this.#where(query['q/where']);
    if (Array.isArray(query['q/order-by'])) {
      out['q/order-by'] = query['q/order-by'].map((o) =>
        Array.isArray(o) && Array.isArray(o[0]) ? [this.#path(o[0]), ...o.slice(1)] : o,
      );
    }
    return out;
  }

  #select(select: unknown, svcType: string | undefined, overlay: Overlay): unknown {
    if (Array.isArray(select)) {
      return select.map((s) => (isObject(s) ? this.#selectObject(s, svcType, overlay) : this.name(s)));
    }
    if (!isObject(select)) return select;
    // the object form {alias: field | [path] | {sub-query} | {nested aliases}}: aliases are the
    // caller's words; an object without q/from is more aliases read from the same entity
    const out: Obj = {};
    for (const [alias, v] of Object.entries(select)) {
      out[alias] = isAggregate(v)
        ? this.#aggregate(v)
        : Array.isArray(v)
          ? this.#path(v)
          : isObject(v)
            ? 'q/from' in v
              ? this.#query(v, undefined, overlay)
              : this.#select(v, svcType, overlay)
            : this.name(v);
    }
    return out;
  }

  /** `{field: [sub fields]}`, `{collection: {q/select…}}` or `{alias: [aggregate, path]}`. */
  #selectObject(element: Obj, svcType: string | undefined, overlay: Overlay): Obj {
    const out: Obj = {};
    for (const [key, v] of Object.entries(element)) {
      if (isAggregate(v)) {
        out[key] = this.#aggregate(v);
        continue;
      }
      const field = this.#svc(key) as string;
      const target = svcType ? this.#targetOf(this.#field(svcType, field, overlay)) : undefined;
      out[this.name(key) as string] = Array.isArray(v)
        ? this.#select(v, target, overlay)
        : this.#query(v, target, overlay);
    }
    return out;
  }

  #aggregate(v: unknown[]): unknown[] {
    return [v[0], ...v.slice(1).map((p) => (Array.isArray(p) ? this.#path(p) : this.name(p)))];
  }

  #path(path: unknown[]): unknown[] {
    return path.map(this.name);
  }

  /**
   * `[op, [path], $param]`, `[q/and, expr, expr]`, `[q/start, [path]]`: paths are names, and so is
   * a field written on its own (`[=, "fibery/id", $id]`); values only come as `$` parameters.
   */
  #where(where: unknown): unknown {
    if (!Array.isArray(where) || typeof where[0] !== 'string') return where;
    return [
      where[0],
      ...where.slice(1).map((arg) => {
        if (typeof arg === 'string') return arg.startsWith('$') ? arg : this.name(arg);
        if (!Array.isArray(arg)) return arg;
        return arg.every((x) => typeof x === 'string') && !isAggregate(arg)
          ? this.#path(arg)
          : this.#where(arg);
      }),
    ];
  }

  // --- results ---

  #element(command: unknown, element: unknown, overlay: Overlay): unknown {
    if (!isObject(element) || typeof element.success !== 'boolean') return element;
    if (element.success) return { ...element, result: this.#result(command, element.result, overlay) };
    const out: Obj = { ...element };
    // a failure carries its message in `error` (weft) or `result` (the real service)
    for (const key of ['error', 'result'])
      if (isObject(element[key])) out[key] = this.errorBody(element[key]);
    return out;
  }

  #result(command: unknown, result: unknown, overlay: Overlay): unknown {
    if (!isObject(command)) return result;
    const name = command.command;
    const args = isObject(command.args) ? command.args : {};
    switch (name) {
      case 'svc.schema/query':
        return this.#schemaObject(result);
      case 'svc.app/save':
        return isObject(result) ? this.#renameKeys(result) : result;
      case 'svc.entity/create':
      case 'svc.entity/update':
        return this.entity(typeof args.type === 'string' ? args.type : undefined, result, overlay);
      case 'svc.entity.batch/create':
      case 'svc.entity.batch/create-or-update': {
        if (!Array.isArray(result)) return result;
        const type = typeof args.type === 'string' ? args.type : undefined;
        // create answers the entities; create-or-update one {action, created | entity, duplicate, updated} each
        return result.map((r) =>
          name === 'svc.entity.batch/create' || !isObject(r)
            ? this.entity(type, r, overlay)
            : Object.fromEntries(
                Object.entries(r).map(([k, v]) => [k, k === 'action' ? v : this.entity(type, v, overlay)]),
              ),
        );
      }
      case 'svc.entity/query': {
        const query = isObject(args.query) ? args.query : {};
        const type = typeof query['q/from'] === 'string' ? query['q/from'] : undefined;
        return Array.isArray(result) ? result.map((row) => this.entity(type, row, overlay)) : result;
      }
      case 'svc.command/batch':
      case 'svc.schema/batch': {
        if (!Array.isArray(result)) return result;
        const inner = Array.isArray(args.commands) ? args.commands : [];
        return result.map((r, i) =>
          isObject(r) && typeof r.success === 'boolean'
            ? this.#element(inner[i], r, overlay)
            : this.#result(inner[i], r, overlay),
        );
      }
      default:
        return result;
    }
  }

  #effect(effect: unknown): unknown {
    if (!isObject(effect)) return effect;
    const type = this.#svcString(effect.type);
    const field = this.#svcString(effect.field);
    const out: Obj = { ...effect, effect: this.name(effect.effect) };
    if ('type' in effect) out.type = this.name(effect.type);
    if ('field' in effect) out.field = this.name(effect.field);
    for (const key of ['values', 'valuesBefore'])
      if (key in effect) out[key] = this.entity(type, effect[key]);
    if (Array.isArray(effect.items)) {
      const target = type && field ? this.#targetOf(this.#field(type, field)) : undefined;
      out.items = effect.items.map((item) => this.entity(target, item));
    }
    return out;
  }

  // --- helpers ---

  #refValue(target: string | undefined, value: unknown, overlay?: Overlay): unknown {
    if (isObject(value)) return this.entity(target, value, overlay);
    if (Array.isArray(value)) return value.map((v) => (isObject(v) ? this.entity(target, v, overlay) : v));
    return value;
  }

  #field(svcType: string, svcField: string, overlay?: Overlay): FieldInfo | undefined {
    return overlay?.get(svcType)?.get(svcField) ?? this.#lookup?.(svcType, svcField);
  }

  #targetOf(info: FieldInfo | undefined): string | undefined {
    return info?.kind === 'ref' ? info.target : undefined;
  }

  /** A name as weft spells it inside (svc). */
  #svc(name: unknown): unknown {
    return this.from === 'svc' ? name : this.name(name);
  }

  #svcString(name: unknown): string | undefined {
    const svc = this.#svc(name);
    return typeof svc === 'string' ? svc : undefined;
  }
}

/** The fields that schema commands in `commands` (svc spelling) create, into `overlay`. */
function learn(commands: unknown, overlay: Overlay): void {
  if (Array.isArray(commands)) {
    for (const c of commands) learn(c, overlay);
    return;
  }
  if (!isObject(commands) || !isObject(commands.args)) return;
  const args = commands.args;
  const add = (type: unknown, field: unknown, fieldType: unknown) => {
    if (typeof type !== 'string' || typeof field !== 'string' || typeof fieldType !== 'string') return;
    let fields = overlay.get(type);
    if (!fields) {
      fields = new Map();
      overlay.set(type, fields);
    }
    fields.set(field, PRIMITIVES.has(fieldType) ? { kind: 'value' } : { kind: 'ref', target: fieldType });
  };
  switch (commands.command) {
    case 'svc.command/batch':
    case 'svc.schema/batch':
      learn(args.commands, overlay);
      break;
    case 'schema.type/create':
      if (Array.isArray(args['svc/fields'])) {
        for (const f of args['svc/fields']) {
          if (isObject(f)) add(args['svc/name'], f['svc/name'], f['svc/type']);
        }
      }
      break;
    case 'schema.field/create':
      add(args['svc/holder-type'], args['svc/name'], args['svc/type']);
      break;
  }
}

/** The pair of codecs for a namespace other than svc (in: from callers, out: to them); none for svc. */
export function codecsFor(namespace: Namespace): { in: NamespaceCodec; out: NamespaceCodec } | undefined {
  return namespace === 'svc'
    ? undefined
    : { in: new NamespaceCodec(namespace, 'svc'), out: new NamespaceCodec('svc', namespace) };
}

export { PRIMITIVES as SVC_PRIMITIVE_TYPES };
