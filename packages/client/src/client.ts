// createWorkspaceClient: one object for the whole data API of a workspace (the real service or
// the local one), with the rate budget and batching built in.
import { codecsFor, type Namespace, parseNamespace } from '@weft/namespace';
import { processBudgetStore } from './budget/memory-budget-store.js';
import type { BudgetStore, RateLimit } from './budget/budget-store.js';
import { budgetFor } from './budget/rate-budget.js';
import { type Command, settle } from './commands/command.js';
import { CommandChannel } from './commands/command-channel.js';
import { BatchBuilder, type Resolved, resolveSlots, unwrapInner } from './commands/explicit-batch.js';
import { Transport, type TransportEvent, type TransportStats } from './http/transport.js';
import { QueryBuilder } from './query/query-builder.js';
import type { CompiledQuery } from './query/query-object.js';
import { commentsApi } from './resources/comments.js';
import type { ClientContext } from './resources/context.js';
import { documentsApi } from './resources/documents.js';
import { entitiesApi } from './resources/entities.js';
import { filesApi } from './resources/files.js';
import { schemaApi } from './resources/schema-api.js';
import { tokensApi } from './resources/tokens.js';
import { usersApi } from './resources/users.js';
import { viewsApi } from './resources/views.js';
import { webhooksApi } from './resources/webhooks.js';
import type { AnySchema, TypeName } from './schema-types.js';

export interface WorkspaceClientOptions {
  /** Base address of the workspace, e.g. `http://127.0.0.1:4000`. */
  url: string;
  /** API token, sent as `Authorization: Token <token>`. Never logged, never in errors. */
  token: string;
  /**
   * Requests per window for this token (default 3 per 1000 ms, the service's limit); `false` for
   * no client-side budget (a local workspace started without a limit).
   */
  rateLimit?: Partial<RateLimit> | false;
  /**
   * Extra milliseconds added to the window so requests that travel at different speeds still
   * arrive within the limit (default 5).
   */
  safetyMarginMs?: number;
  /** Where the budget lives (default: this process's memory, shared by all its clients). */
  budgetStore?: BudgetStore;
  /** Most commands coalesced into one request (default 100; 1 turns coalescing off). */
  maxBatch?: number;
  /** Attempts after a 429 (default 10). */
  max429Retries?: number;
  /** Attempts after a network failure or 5xx, for requests safe to repeat (default 2). */
  maxRetries?: number;
  /** Per-request time limit in ms (default 30 000). */
  timeoutMs?: number;
  /** Observe requests, 429s and retries (no headers, no bodies). */
  onEvent?: (event: TransportEvent) => void;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /**
   * The word the workspace uses for the service's namespace: `svc` (default, as weft's local
   * workspace speaks by default) or `fibery` (the real service). The client's own API always
   * names things in `svc`; it renames them on the way to the workspace and back.
   */
  namespace?: Namespace;
}

/**
 * A client for one workspace and token. Pass the interface `weft-types` generated as `S` to have
 * type names, field names and values checked: `createWorkspaceClient<Workspace>({ url, token })`.
 */
export function createWorkspaceClient(options: WorkspaceClientOptions): WorkspaceClient<AnySchema>;
export function createWorkspaceClient<S>(options: WorkspaceClientOptions): WorkspaceClient<S>;
// The untyped overload comes first so that assigning to an annotated variable never makes the
// compiler infer S from the (large) return type.
export function createWorkspaceClient(options: WorkspaceClientOptions): any {
  return buildClient(options);
}

function buildClient<S>(options: WorkspaceClientOptions) {
  const baseUrl = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
  if (!options.token) throw new TypeError('createWorkspaceClient needs a token');
  const rate = options.rateLimit === false ? { requests: Number.POSITIVE_INFINITY } : options.rateLimit;
  const limit: RateLimit = {
    requests: rate?.requests ?? 3,
    perMs: (rate?.perMs ?? 1000) + (options.safetyMarginMs ?? 5),
  };
  const budget = budgetFor(options.budgetStore ?? processBudgetStore(), baseUrl.origin, options.token, limit);
  const transport = new Transport({
    baseUrl,
    token: options.token,
    budget,
    fetch: options.fetch ?? globalThis.fetch,
    max429Retries: options.max429Retries ?? 10,
    maxRetries: options.maxRetries ?? 2,
    timeoutMs: options.timeoutMs ?? 30_000,
    onEvent: options.onEvent,
  });
  const names = codecsFor(parseNamespace(options.namespace, 'namespace'));
  const channel = new CommandChannel(transport, { maxBatch: Math.max(1, options.maxBatch ?? 100), names });
  const ctx: ClientContext = { transport, channel, names };
  const documents = documentsApi(ctx);

  const runQuery = (compiled: CompiledQuery) =>
    channel.run({ command: 'svc.entity/query', args: { ...compiled } }) as Promise<unknown[]>;

  return {
    /** Requests sent, 429s met and retries made by this client. */
    get stats(): Readonly<TransportStats> {
      return transport.stats;
    },

    /** Any command, coalesced with others issued in the same turn; resolves to its result. */
    command<T = unknown>(
      command: string,
      args: Record<string, unknown> = {},
      correlationId?: string,
    ): Promise<T> {
      return channel.run({ command, args, ...(correlationId ? { correlationId } : {}) }) as Promise<T>;
    },

    /** These commands as one request, now; resolves to their results in order (the first failure throws). */
    async commands(commands: Command[]): Promise<unknown[]> {
      const answer = await channel.send(commands);
      return answer.map((element, index) => settle(element, commands[index]!, index));
    },

    /**
     * An atomic batch (`svc.command/batch`): the callback adds commands through `b` and returns
     * slots; the call resolves to that return value with each slot replaced by its result.
     */
    async batch<R>(fn: (b: BatchBuilder<S>) => R | Promise<R>, correlationId?: string): Promise<Resolved<R>> {
      const b = new BatchBuilder<S>();
      const value = await fn(b);
      if (b.commands.length === 0) return resolveSlots(value, []);
      const command: Command = {
        command: 'svc.command/batch',
        args: { commands: b.commands },
        ...(correlationId ? { correlationId } : {}),
      };
      const [element] = await channel.send([command]);
      return resolveSlots(value, unwrapInner(settle(element, command, 0)));
    },

    /** A typed query on one type: `client.query('Tracker/Task').select('Name').limit(10).all()`. */
    query<T extends TypeName<S>>(type: T): QueryBuilder<S, T> {
      return new QueryBuilder<S, T>(runQuery, type);
    },

    /** A query object as the service takes it, with its params. */
    rawQuery(query: Record<string, unknown>, params: Record<string, unknown> = {}): Promise<unknown[]> {
      return channel.run({ command: 'svc.entity/query', args: { query, params } }) as Promise<unknown[]>;
    },

    schema: schemaApi(ctx),
    entities: entitiesApi<S>(ctx),
    documents,
    comments: commentsApi(ctx, documents.putMany),
    files: filesApi(ctx),
    views: viewsApi(ctx),
    webhooks: webhooksApi(ctx),
    tokens: tokensApi(ctx),
    /** Local workspace only. */
    users: usersApi(ctx),
  };
}

export type WorkspaceClient<S = AnySchema> = ReturnType<typeof buildClient<S>>;
