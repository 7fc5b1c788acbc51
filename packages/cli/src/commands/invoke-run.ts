// `weft invoke`: one protocol operation against an app, played as the workspace's host plays it
// (the sync engine's client and paging loop, its lenient reader and its warnings), printed and
// never stored. The account is validated first, as the host does before every sync, and sent as
// the service sends it (system keys, then the fields, then what /validate answered).
import { resolveDateFilters, serviceAccount } from '@weft/conformance';
import { redact } from '@weft/core/redact';
import {
  AppCallError,
  AppClient,
  accountSecrets,
  type Exchange,
  type ExchangeSummary,
  formatWarning,
  type ReadDescriptor,
  readPages,
  summarizeExchange,
} from '@weft/sync-engine';
import { type CliIo, counted, EXIT, UsageError } from '../io.js';
import type { InvokeArgs } from './invoke-args.js';
import { exchangeText, pretty, table } from './invoke-print.js';

type Json = Record<string, unknown>;

/** What `--json` prints: one document, whatever happened. */
interface Report {
  app: string;
  operation: string;
  exchanges: (ExchangeSummary & { detail?: string })[];
  warnings: string[];
  /** data: every page read */
  pages?: {
    page: number;
    status?: number;
    ms: number;
    items: Json[];
    hasNext: boolean;
    warnings: string[];
  }[];
  result?: unknown;
  error?: { message: string; status: number; body?: string };
}

class Invocation {
  readonly report: Report;
  private secrets: string[] = [];
  /** the exchange just made, waiting for the caller to say what it brought (a page's items) */
  private pending: ExchangeSummary | undefined;
  /** warnings about the pending exchange's answer, shown once it is */
  private readonly unsaid: string[] = [];
  readonly client: AppClient;

  constructor(
    readonly url: string,
    readonly args: InvokeArgs,
    private readonly io: CliIo,
  ) {
    this.report = { app: url, operation: args.operation.name, exchanges: [], warnings: [] };
    // Secret-named values are known before the descriptor tells which fields are passwords.
    this.secrets = accountSecrets(args.account ?? {});
    this.client = new AppClient(url, {
      onExchange: (exchange) => this.exchanged(exchange),
      onWarning: (warning) => this.warn(formatWarning(warning)),
    });
  }

  /** Values never shown: the account's secrets, once the descriptor says which fields are passwords. */
  protect(account: Json, descriptor: ReadDescriptor): void {
    const passwords = descriptor.authentication.flatMap((a) =>
      (a.fields ?? []).filter((f) => f.type === 'password' || f.secret === true).map((f) => f.id),
    );
    this.secrets = accountSecrets(account, passwords);
  }

  private exchanged(exchange: Exchange): void {
    this.flush();
    this.pending = summarizeExchange(exchange, this.secrets);
  }

  /** Prints the exchange just made, with what it brought. */
  flush(detail?: string): void {
    const summary = this.pending;
    if (!summary) return;
    this.pending = undefined;
    this.report.exchanges.push(detail ? { ...summary, detail } : summary);
    if (!this.args.json) this.io.stdout.write(exchangeText(summary, detail));
    const said = this.unsaid.splice(0);
    for (const text of said) this.warn(text);
  }

  /** A warning of the reader: shown under the exchange whose answer it read. */
  warn(text: string): void {
    if (this.pending) {
      this.unsaid.push(text);
      return;
    }
    this.report.warnings.push(text);
    if (!this.args.json) this.io.stdout.write(`  warning: ${text}\n`);
  }

  print(text: string): void {
    if (!this.args.json) this.io.stdout.write(text);
  }

  failed(error: AppCallError): number {
    const last = this.pending ?? this.report.exchanges.at(-1);
    this.flush();
    const message = redact(error.message, this.secrets);
    this.report.error = {
      message,
      status: error.status,
      ...(last?.errorBody !== undefined ? { body: last.errorBody } : {}),
    };
    if (this.args.json) this.io.stdout.write(pretty(this.report));
    else
      this.io.stderr.write(
        `weft invoke: ${error.status === 0 ? 'no answer from the app' : 'the app answered an error'}: ${message}\n`,
      );
    return EXIT.findings;
  }

  done(result?: unknown): number {
    this.flush();
    if (result !== undefined) this.report.result = result;
    if (this.args.json) this.io.stdout.write(pretty(this.report));
    return EXIT.ok;
  }
}

function chooseAuth(descriptor: ReadDescriptor, args: InvokeArgs) {
  const auths = descriptor.authentication;
  const named = args.auth ?? (typeof args.account?.auth === 'string' ? args.account.auth : undefined);
  const auth = named
    ? auths.find((a) => a.id === named)
    : args.account
      ? (auths.find((a) => a.id !== 'none') ?? auths[0])
      : auths[0];
  if (!auth)
    throw new UsageError(
      `the app has no authentication ${JSON.stringify(named ?? '')} (it has ${auths.map((a) => a.id).join(', ') || 'none'})`,
    );
  if (auth.id !== 'none' && !args.account)
    throw new UsageError(`the app's authentication ${auth.id} needs an account: --account <json|file>`);
  return auth;
}

async function operate(run: Invocation): Promise<number> {
  const { client, args } = run;
  const op = args.operation;
  const descriptor = await client.descriptor();
  run.flush(`${descriptor.name} ${descriptor.version}`);
  const auth = chooseAuth(descriptor, args);
  const fields = { ...(args.account ?? {}) };
  delete fields.auth;
  run.protect(serviceAccount({ authenticationId: auth.id, fields }), descriptor);

  if (op.name === 'validate') {
    const answer = await client.validate(auth.id, fields);
    run.flush(`account ${JSON.stringify(answer.name)}`);
    run.print(pretty(answer));
    return run.done(answer);
  }
  // As the host does before every sync: the account is validated, and what /validate answered
  // (a refreshed token, the account's name) is sent with it.
  let validated: Json = {};
  if (auth.id !== 'none') {
    validated = await client.validate(auth.id, fields);
    run.flush(`account ${JSON.stringify(validated.name)}`);
  }
  const account = serviceAccount({ authenticationId: auth.id, fields, validated });
  run.protect(account, descriptor);

  // The config says which filters are dates (phrases become ranges) and which types are the
  // defaults, sent as context where no type is named.
  const needsConfig =
    op.name === 'config' ||
    Object.keys(args.filter).length > 0 ||
    (!args.types && op.name !== 'data' && op.name !== 'action');
  const config = needsConfig ? await client.config(account) : undefined;
  if (config) run.flush(`${config.types.length} types, ${config.filters?.length ?? 0} filters`);
  if (op.name === 'config') {
    run.print(pretty(config));
    return run.done(config);
  }
  let filter: Json = args.filter;
  if (config) {
    try {
      filter = await resolveDateFilters(config.filters ?? [], args.filter, new Date());
    } catch (error) {
      throw new UsageError(`--filter: ${(error as Error).message}`);
    }
  }
  const defaults = config?.types.filter((t) => t.default).map((t) => t.id) ?? [];
  const types =
    args.types ??
    (op.name === 'data'
      ? [op.type]
      : defaults.length > 0
        ? defaults
        : (config?.types.map((t) => t.id) ?? []));

  switch (op.name) {
    case 'schema': {
      const schema = await client.schema(types, filter, account);
      run.flush(`${Object.keys(schema).length} types`);
      run.print(pretty(schema));
      return run.done(schema);
    }
    case 'datalist': {
      const items = await client.datalist(op.field, types, account, filter);
      run.flush(`${items.length} options`);
      run.print(table(items as Json[]));
      return run.done(items);
    }
    case 'action': {
      const answer = await client.execute(op.action, op.args, account);
      run.flush(`action ${op.action} ran`);
      run.print(pretty(answer));
      return run.done(answer);
    }
    case 'webhook-transform': {
      const data = await client.transformWebhook({
        params: op.params,
        payload: op.payload,
        types,
        filter,
        account,
      });
      run.flush(
        Object.entries(data)
          .map(([type, rows]) => `${type}: ${rows.length} items`)
          .join(', ') || 'no items',
      );
      for (const [type, rows] of Object.entries(data)) run.print(`${type}:\n${table(rows)}`);
      return run.done(data);
    }
    case 'data':
      return readData(run, op.type, types, filter, account);
  }
}

async function readData(run: Invocation, type: string, types: string[], filter: Json, account: Json) {
  const { args } = run;
  const pages: NonNullable<Report['pages']> = [];
  run.report.pages = pages;
  // No retries: the first `tryLater` is shown as the app sent it (the host would try again later).
  const events = readPages(run.client, {
    type,
    types,
    filter,
    account,
    lastSynchronizedAt: args.since ?? null,
    retry: { attempts: 1 },
  });
  for await (const event of events) {
    if (event.kind === 'failed') return run.failed(event.error);
    if (event.kind !== 'page') continue;
    const warnings = event.warnings.map((w) => `${type}: ${formatWarning(w)}`);
    const summary = run.report.exchanges.length;
    run.flush(
      `${type} page ${event.page}: ${event.items.length} items (${event.pageSynchronizationType})${event.hasNext ? ', more pages' : ''}`,
    );
    const exchange = run.report.exchanges[summary];
    pages.push({
      page: event.page,
      ...(exchange?.status !== undefined ? { status: exchange.status } : {}),
      ms: exchange?.ms ?? 0,
      items: event.items as Json[],
      hasNext: event.hasNext,
      warnings,
    });
    for (const w of warnings) run.warn(w);
    run.print(table(event.items as Json[]));
    if (args.pages !== undefined && event.page >= args.pages && event.hasNext) {
      run.print(`Stopped after ${args.pages} pages (--pages); the app has more.\n`);
      break;
    }
  }
  const items = pages.reduce((n, p) => n + p.items.length, 0);
  run.print(`${counted(items, 'item')} in ${counted(pages.length, 'page')}\n`);
  return run.done({ type, items, pages: pages.length });
}

/** Runs the operation against the app at `url`; resolves with the exit status. */
export async function invoke(url: string, args: InvokeArgs, io: CliIo): Promise<number> {
  const run = new Invocation(url, args, io);
  try {
    return await operate(run);
  } catch (error) {
    if (error instanceof AppCallError) return run.failed(error);
    throw error;
  }
}
