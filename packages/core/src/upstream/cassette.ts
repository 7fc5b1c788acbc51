/**
 * Recorded upstreams ("cassettes"): `createUpstream` records every exchange with the upstream to
 * a JSON file and replays it later, so an app's tests run offline and cover every page.
 *
 * The mode comes from `WEFT_UPSTREAM`: `off` (default, live), `record` (live, and every attempt's
 * request and answer is written to the cassette), `replay` (no network: answers come from the
 * cassette; a request that was not recorded throws a {@link CassetteError}, never an empty page).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { WeftError } from '../errors/errors.js';
import { REDACTED, isSecretKey, redact } from '../logging/redact.js';

/** How `createUpstream` reaches the upstream: live, live and recording, or from a recording. */
export type UpstreamMode = 'off' | 'record' | 'replay';

/** One recorded exchange. Secrets are replaced by `[redacted]`; auth headers are never stored. */
export interface CassetteInteraction {
  /**
   * `credentials` tells apart requests sent with different credentials without storing them: the
   * first credentials a recording saw are 1, the next different ones 2, and so on (replay numbers
   * them the same way), so a request with a wrong token gets the 401 that was recorded for it.
   */
  request: { method: string; url: string; body?: string; credentials?: number };
  response: {
    status: number;
    headers: Record<string, string>;
    /** The body: parsed when it was JSON (easy to read and edit), else `body` or `base64`. */
    json?: unknown;
    body?: string;
    base64?: string;
  };
}

/** The file format. */
export interface Cassette {
  version: 1;
  interactions: CassetteInteraction[];
}

const cassetteSchema = z.object({
  version: z.literal(1),
  interactions: z.array(
    z.object({
      request: z.object({
        method: z.string(),
        url: z.string(),
        body: z.string().optional(),
        credentials: z.number().int().positive().optional(),
      }),
      response: z.object({
        status: z.number().int().min(200).max(599),
        headers: z.record(z.string(), z.string()),
        json: z.unknown().optional(),
        body: z.string().optional(),
        base64: z.string().optional(),
      }),
    }),
  ),
});

/** A request that replay cannot answer, or a cassette that cannot be used. A 500 for the service. */
export class CassetteError extends WeftError {
  constructor(message: string) {
    super(message, { status: 500 });
  }
}

const MODES: readonly UpstreamMode[] = ['off', 'record', 'replay'];

/**
 * The mode from `WEFT_UPSTREAM` (an unknown value throws). When unset it is `off`, unless
 * {@link useCassette} chose a cassette: then `replay`, so a test that names a cassette is offline.
 */
export function upstreamMode(env: Record<string, string | undefined> = process.env): UpstreamMode {
  const value = env.WEFT_UPSTREAM?.trim().toLowerCase();
  if (!value) return env[CHOSEN_BY_TEST] ? 'replay' : 'off';
  if (!(MODES as readonly string[]).includes(value)) {
    throw new CassetteError(`WEFT_UPSTREAM must be off, record or replay, not "${env.WEFT_UPSTREAM}"`);
  }
  return value as UpstreamMode;
}

// Set by useCassette, so that replay becomes the default for that test.
const CHOSEN_BY_TEST = 'WEFT_CASSETTE_FROM_TEST';

/**
 * Makes every `createUpstream` in this process use the cassette at `path` (relative paths are
 * resolved from the current folder; a `file:` URL such as `new URL('./x.json', import.meta.url)`
 * works too). The mode stays `WEFT_UPSTREAM`'s, and is `replay` when that is unset. Returns a
 * function that restores the previous choice. Vitest isolates test files by default (each gets
 * fresh modules), so calling it at the top of a test file gives one cassette per file. With
 * `isolate: false` files share modules one after another: a client an earlier file made keeps
 * that file's cassette, and a file that does not call this inherits the last choice, so keep
 * files that use cassettes in an isolated project.
 *
 * @example
 * useCassette('cassettes/kit.json');
 * // WEFT_UPSTREAM=record npx vitest run   -> records against the live upstream
 * // npx vitest run                        -> replays, offline
 */
export function useCassette(path: string | URL): () => void {
  const previous = { file: process.env.WEFT_CASSETTE, chosen: process.env[CHOSEN_BY_TEST] };
  const file = typeof path === 'string' ? resolve(path) : fileURLToPath(path);
  process.env.WEFT_CASSETTE = file;
  process.env[CHOSEN_BY_TEST] = '1';
  // A fresh start for this file: the next recording rewrites it, the next replay rereads it.
  recordings.delete(file);
  replays.delete(file);
  return () => {
    restoreEnv('WEFT_CASSETTE', previous.file);
    restoreEnv(CHOSEN_BY_TEST, previous.chosen);
  };
}

function restoreEnv(key: string, value: string | undefined): void {
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
}

/** The `fetch` that `createUpstream` uses: the cassette's in record and replay mode, else global fetch. */
export type UpstreamFetch = (url: URL, init: RequestInit & { method: string }) => Promise<Response>;

/**
 * Chooses the transport for one `createUpstream` client. `cassette` is the client's own option;
 * without it `WEFT_CASSETTE` names the file. Record and replay without a cassette throw at once.
 */
export function cassetteFetch(cassette: string | undefined, secrets: readonly string[]): UpstreamFetch {
  const mode = upstreamMode();
  if (mode === 'off') return (url, init) => fetch(url, init);
  const named = cassette ?? process.env.WEFT_CASSETTE;
  if (!named) {
    throw new CassetteError(
      `WEFT_UPSTREAM=${mode} needs a cassette file: set WEFT_CASSETTE, pass createUpstream({ cassette }), or call useCassette(path) in the test`,
    );
  }
  const file = resolve(named);
  return mode === 'record' ? recorder(file, secrets) : player(file, secrets);
}

// One recording per file per process: the first client that records to a file starts it afresh,
// later clients (every handler creates its own) append to it. `labels` numbers credentials.
const recordings = new Map<string, { cassette: Cassette; labels: Map<string, number> }>();
// Replay state per file: the cassette, per request key how many answers were served, and labels.
const replays = new Map<
  string,
  { cassette: Cassette; served: Map<string, number>; labels: Map<string, number> }
>();

/** Forgets what this process recorded or replayed, so the next client starts the file afresh. */
export function resetCassettes(): void {
  recordings.clear();
  replays.clear();
}

function recorder(file: string, secrets: readonly string[]): UpstreamFetch {
  return async (url, init) => {
    const response = await fetch(url, init);
    const bytes = new Uint8Array(await response.arrayBuffer());
    let recording = recordings.get(file);
    if (!recording) {
      recording = { cassette: { version: 1, interactions: [] }, labels: new Map() };
      recordings.set(file, recording);
    }
    const { cassette } = recording;
    cassette.interactions.push({
      request: describeRequest(url, init, secrets, recording.labels),
      response: describeResponse(response, bytes, secrets),
    });
    // Written after every exchange: nothing to flush, and an interrupted run leaves a valid file.
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(cassette, null, 2)}\n`);
    return new Response(bytes.byteLength === 0 || isNullBody(response.status) ? null : bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function player(file: string, secrets: readonly string[]): UpstreamFetch {
  let state = replays.get(file);
  if (!state) {
    state = { cassette: loadCassette(file), served: new Map(), labels: new Map() };
    replays.set(file, state);
  }
  const { cassette, served, labels } = state;
  return async (url, init) => {
    const wanted = describeRequest(url, init, secrets, labels);
    const key = requestKey(wanted);
    const matches = cassette.interactions.filter((i) => requestKey(i.request) === key);
    if (matches.length === 0) {
      throw new CassetteError(
        `Upstream replay: ${wanted.method} ${wanted.url}${wanted.body === undefined ? '' : ' (with this body)'}${wanted.credentials === undefined ? '' : ` (credentials #${wanted.credentials})`} was not recorded in ${file}. Record it again with WEFT_UPSTREAM=record.`,
      );
    }
    // The same request answered in recorded order (a 429 then a 200, a list that changed);
    // past the last recorded answer the last one is repeated.
    const count = served.get(key) ?? 0;
    served.set(key, count + 1);
    const { response } = matches[Math.min(count, matches.length - 1)]!;
    return toResponse(response);
  };
}

/** Reads and checks a cassette file; a missing or malformed file throws a `CassetteError`. */
export function loadCassette(file: string): Cassette {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CassetteError(
      `Upstream replay: no cassette at ${file}. Record it with WEFT_UPSTREAM=record against the live upstream.`,
    );
  }
  try {
    return cassetteSchema.parse(JSON.parse(text)) as Cassette;
  } catch (error) {
    throw new CassetteError(`Upstream replay: ${file} is not a cassette (${(error as Error).message})`);
  }
}

function requestKey(request: CassetteInteraction['request']): string {
  return `${request.method} ${request.url} #${request.credentials ?? 0}\n${request.body ?? ''}`;
}

function describeRequest(
  url: URL,
  init: RequestInit & { method: string },
  secrets: readonly string[],
  labels: Map<string, number>,
): CassetteInteraction['request'] {
  const body = bodyText(init.body);
  let credentials: number | undefined;
  if (secrets.length > 0) {
    const identity = secrets.join('\u0000');
    credentials = labels.get(identity) ?? labels.size + 1;
    labels.set(identity, credentials);
  }
  return {
    method: init.method.toUpperCase(),
    url: redactUrl(url, secrets),
    ...(body === undefined ? {} : { body: redact(body, secrets) }),
    ...(credentials === undefined ? {} : { credentials }),
  };
}

/** The URL with secret values and secret-named query parameters replaced. */
function redactUrl(url: URL, secrets: readonly string[]): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  for (const key of new Set(copy.searchParams.keys())) {
    if (isSecretKey(key) || /^(key|access_?key|client_?id|sig)$/i.test(key)) {
      copy.searchParams.set(key, REDACTED);
    }
  }
  return redact(copy.href, secrets);
}

function bodyText(body: RequestInit['body']): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  if (body instanceof URLSearchParams) return body.toString();
  // Blobs, streams and multipart forms are not compared: their bytes are not at hand synchronously.
  return '[binary body]';
}

// Headers that describe one transfer, not the answer, or that carry credentials.
const DROPPED_RESPONSE_HEADERS = new Set([
  'set-cookie',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'www-authenticate',
  'proxy-authenticate',
]);

function describeResponse(
  response: Response,
  bytes: Uint8Array,
  secrets: readonly string[],
): CassetteInteraction['response'] {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name) && !isSecretKey(name)) headers[name] = redact(value, secrets);
  });
  const out: CassetteInteraction['response'] = { status: response.status, headers };
  if (bytes.byteLength === 0) return out;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    out.base64 = Buffer.from(bytes).toString('base64');
    return out;
  }
  text = redact(text, secrets);
  if (/\bjson\b/i.test(headers['content-type'] ?? '')) {
    try {
      out.json = JSON.parse(text);
      return out;
    } catch {
      // Declared JSON but is not: keep the text as it came.
    }
  }
  out.body = text;
  return out;
}

function toResponse(recorded: CassetteInteraction['response']): Response {
  let body: string | Uint8Array | null = null;
  if (recorded.json !== undefined) body = JSON.stringify(recorded.json);
  else if (recorded.body !== undefined) body = recorded.body;
  else if (recorded.base64 !== undefined) body = Buffer.from(recorded.base64, 'base64');
  return new Response(isNullBody(recorded.status) ? null : body, {
    status: recorded.status,
    headers: recorded.headers,
  });
}

function isNullBody(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}
