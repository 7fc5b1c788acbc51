import {
  AppClient,
  appMessageOf,
  type ExchangeRequest,
  requestText,
  type SendOptions,
} from '@weft/sync-engine';
import { CHECKS, type CheckId } from './catalog.js';
import {
  describeAnswer,
  type Exchange,
  looksLikeHtml,
  redact,
  requestExcerpt,
  responseExcerpt,
} from './http.js';
import type { Check, CheckStatus, ProgressEvent } from './types.js';
import { isPlainObject, show } from './util.js';

export interface RecordInput {
  /** Appended to the title, e.g. the type id. */
  subject?: string;
  reason?: string;
  exchange?: Exchange;
}

export interface CallOptions extends SendOptions {
  /** An optional endpoint: 404/405/501 answers are not held against the error-body checks. */
  optional?: boolean;
  /** Do not run the global error-body checks on this answer (GET /logo). */
  skipInspection?: boolean;
}

/**
 * The sync engine's protocol client, as the kit uses it: redirects and closed connections are
 * shown as they happened, and every request the engine sends (data pages, retries) goes through
 * the run's context, which sees and judges each exchange.
 */
class KitClient extends AppClient {
  constructor(private readonly ctx: Context) {
    super(ctx.baseUrl, { redirect: 'manual', reconnect: false });
  }

  override send(request: ExchangeRequest, options: CallOptions = {}): Promise<Exchange> {
    return this.ctx.exchange(request, options, (o) => super.send(request, o));
  }
}

type GlobalId = 'errors.try-later-status' | 'errors.message-key' | 'errors.json-body';
const GLOBAL_IDS: GlobalId[] = ['errors.try-later-status', 'errors.message-key', 'errors.json-body'];

/** State of one conformance run: the app address, the checks recorded so far, the request helper. */
export class Context {
  readonly checks: Check[] = [];
  /** Sends the kit's requests: pass it to the sync engine's functions. */
  readonly client: AppClient;
  private secrets: string[] = [];
  private answers = 0;
  /** The latest request the app gave no answer to (the one that may have crashed it). */
  private lastUnanswered?: Exchange;
  /** Set once the app stops accepting connections after having answered: it went away. */
  private gone?: string;
  private readonly violations = new Map<
    GlobalId,
    Map<string, { ex: Exchange; reason: string; count: number }>
  >();

  constructor(
    readonly baseUrl: string,
    /** Raised once `GET /` announced the app's own time limit. */
    public timeoutMs: number,
    private readonly onProgress?: (event: ProgressEvent) => void,
  ) {
    this.client = new KitClient(this);
  }

  /** Values that must never appear in the report (passwords, tokens); replaced by `***` in excerpts. */
  addSecrets(values: readonly unknown[]): void {
    const strings = values.filter((v): v is string => typeof v === 'string' && v.length >= 3);
    this.secrets = [...new Set([...this.secrets, ...strings])].sort((a, b) => b.length - a.length);
  }

  progress(event: ProgressEvent): void {
    try {
      this.onProgress?.(event);
    } catch {
      // a failing progress listener must not break the run
    }
  }

  /** Sends a request; the answer also goes through the checks that apply to every endpoint. */
  send(request: ExchangeRequest, options: CallOptions = {}): Promise<Exchange> {
    return this.client.send(request, options);
  }

  /** Every request of the run comes here (see KitClient), whoever sent it. */
  async exchange(
    request: ExchangeRequest,
    options: CallOptions,
    transmit: (options: SendOptions) => Promise<Exchange>,
  ): Promise<Exchange> {
    if (this.gone) return goneExchange(request, options.rawBody, this.gone);
    const sendOptions: SendOptions = { timeoutMs: options.timeoutMs ?? this.timeoutMs };
    if (options.rawBody !== undefined) sendOptions.rawBody = options.rawBody;
    if (options.signal) sendOptions.signal = options.signal;
    const ex = await transmit(sendOptions);
    if (ex.unreachable && this.answers > 0) {
      // The app answered before and now refuses connections: it most likely crashed. Every
      // later request would fail the same way, so they are not sent; each check says why once.
      this.gone = this.goneReason(ex.unreachable);
      ex.failure = this.gone;
    } else if (ex.failure && !ex.unreachable) this.lastUnanswered = ex;
    if (!options.skipInspection) this.inspect(ex, options.optional ?? false);
    if (ex.status !== undefined) this.answers++;
    return ex;
  }

  private goneReason(code: string): string {
    const last = this.lastUnanswered;
    const culprit = last
      ? ` It gave no answer to ${last.method} ${last.path}${last.requestBody ? ` ${requestExcerpt(last, this.secrets).body}` : ''}.`
      : '';
    return `the app stopped accepting connections during the run (${code}): did it crash? Is it still running at ${this.baseUrl}?${culprit}`;
  }

  record(id: CheckId, status: CheckStatus, input: RecordInput = {}): Check {
    const entry = CHECKS[id];
    const check: Check = {
      id,
      group: entry.group,
      title: input.subject ? `${entry.title} (${input.subject})` : entry.title,
      status,
    };
    if (input.reason) check.reason = redact(input.reason, this.secrets);
    if (input.exchange) {
      check.request = requestExcerpt(input.exchange, this.secrets);
      check.response = responseExcerpt(input.exchange, this.secrets);
    }
    this.checks.push(check);
    this.progress({ kind: 'check', check });
    return check;
  }

  pass(id: CheckId, input?: RecordInput): Check {
    return this.record(id, 'pass', input);
  }
  fail(id: CheckId, input?: RecordInput): Check {
    return this.record(id, 'fail', input);
  }
  warn(id: CheckId, input?: RecordInput): Check {
    return this.record(id, 'warn', input);
  }
  skip(id: CheckId, input?: RecordInput): Check {
    return this.record(id, 'skip', input);
  }

  /** Records pass, or fail with the reason when `problem` is set. */
  expect(id: CheckId, problem: string | undefined, input: RecordInput = {}): Check {
    return problem ? this.fail(id, { ...input, reason: problem }) : this.pass(id, input);
  }

  private inspect(ex: Exchange, optional: boolean): void {
    if (ex.status === undefined) return;
    const where = `${ex.method} ${ex.path}`;
    if (ex.status >= 200 && ex.status < 300) {
      if (isPlainObject(ex.json) && ex.json.tryLater === true) {
        this.violate('errors.try-later-status', where, ex, `\`tryLater: true\` sent with HTTP ${ex.status}`);
      }
      return;
    }
    if (ex.status < 400) return;
    if (optional && [404, 405, 501].includes(ex.status)) return;
    if (!ex.isJson) {
      const what = looksLikeHtml(ex) ? 'an HTML page' : describeAnswer(ex).replace(/^HTTP \d+ with /, '');
      this.violate(
        'errors.json-body',
        where,
        ex,
        `error answer HTTP ${ex.status} is ${what}, not JSON {message}`,
      );
      return;
    }
    if (appMessageOf(ex) === undefined)
      this.violate('errors.message-key', where, ex, `error body has no string \`message\`: ${show(ex.json)}`);
  }

  private violate(id: GlobalId, where: string, ex: Exchange, reason: string): void {
    let byWhere = this.violations.get(id);
    if (!byWhere) {
      byWhere = new Map();
      this.violations.set(id, byWhere);
    }
    const seen = byWhere.get(where);
    if (seen) seen.count++;
    else byWhere.set(where, { ex, reason, count: 1 });
  }

  /** Records the checks that apply to every answer: one failure per endpoint, or one pass. */
  finishGlobalChecks(): void {
    for (const id of GLOBAL_IDS) {
      const byWhere = this.violations.get(id);
      if (!byWhere || byWhere.size === 0) {
        if (this.answers === 0) this.skip(id, { reason: 'the app gave no answer' });
        else this.pass(id, { reason: `none of ${this.answers} answers broke this rule` });
        continue;
      }
      for (const [where, { ex, reason, count }] of byWhere) {
        this.fail(id, {
          subject: where,
          reason: count > 1 ? `${reason} (${count} answers)` : reason,
          exchange: ex,
        });
      }
    }
  }
}

/** A request not sent because the app went away: it fails with `reason`, at once. */
function goneExchange(request: ExchangeRequest, rawBody: string | undefined, reason: string): Exchange {
  const ex: Exchange = { method: request.method, path: request.path, isJson: false, failure: reason, ms: 0 };
  const text = requestText(request.body, rawBody);
  if (text !== undefined) ex.requestBody = text;
  return ex;
}

/** Why an answer is not a proper error answer, or undefined when it is one. */
export function errorAnswerProblem(
  ex: Exchange,
  accept: (status: number) => boolean,
  expected: string,
): string | undefined {
  if (ex.failure) return ex.failure;
  const status = ex.status ?? 0;
  if (!accept(status)) return `expected ${expected}, got ${describeAnswer(ex)}`;
  if (!ex.isJson)
    return `expected a JSON {message} body, got ${looksLikeHtml(ex) ? 'an HTML page' : 'a non-JSON body'}`;
  if (appMessageOf(ex) === undefined) return `the error body has no string \`message\`: ${show(ex.json)}`;
  return undefined;
}

/**
 * For probes of unusual input: what fails whatever the status — no answer in time, or an error
 * answer whose body is not JSON `{message}`. Undefined when the app answered properly.
 */
export function probeProblem(ex: Exchange): string | undefined {
  if (ex.failure) return ex.failure;
  if ((ex.status ?? 0) >= 400) return errorAnswerProblem(ex, () => true, 'an error status with {message}');
  return undefined;
}

/** `: "the message"` of an error answer, for reasons. */
export function messageOf(ex: Exchange): string {
  const message = appMessageOf(ex);
  return message === undefined ? '' : `: ${show(message)}`;
}

/** Why an answer is not a 2xx JSON answer, or undefined. */
export function jsonAnswerProblem(ex: Exchange, expected = 'HTTP 200 with JSON'): string | undefined {
  if (ex.failure) return ex.failure;
  const status = ex.status ?? 0;
  if (status < 200 || status >= 300) {
    const message =
      isPlainObject(ex.json) && typeof ex.json.message === 'string' ? `: ${show(ex.json.message)}` : '';
    return `expected ${expected}, got ${describeAnswer(ex)}${message}`;
  }
  if (!ex.isJson)
    return `expected ${expected}, got ${looksLikeHtml(ex) ? 'an HTML page' : 'a non-JSON body'}`;
  return undefined;
}

/** Formats zod issues as `path: message` lines. */
export function formatIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  max = 5,
): string {
  const lines = issues
    .slice(0, max)
    .map((i) => `${i.path.length > 0 ? i.path.map(String).join('.') : '(root)'}: ${i.message}`);
  if (issues.length > max) lines.push(`and ${issues.length - max} more`);
  return lines.join('; ');
}
