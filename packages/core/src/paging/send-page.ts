import type { Response } from 'express';
import type { Logger } from '../logging/logger.js';
import type { Page, RawSegment } from './cut-page.js';
import type { PageState } from './page-state.js';
import { DEFAULT_REPLAY_WARNING_PAGES, REPLAYED_ROWS_HEADER, warnOnReplay } from './replay-warning.js';

/** What was served, for the replay header and warning. */
export interface ServedPage {
  type: { id: string; pageSize: number };
  /** The state the page was served from. */
  state: PageState;
  page: Page;
  log: Logger;
  /** The router's `replayWarningPages`; undefined means the default. */
  replayWarningPages: number | false | undefined;
  operationId: string | undefined;
}

/** A data answer: `items` first, as the page's items (before `jsonItems()` are spliced in). */
export interface PageBody {
  items: Record<string, unknown>[];
  [key: string]: unknown;
}

/**
 * Sends a data answer: the replayed-rows header, the replay warning when this page crosses
 * the threshold, and the body as JSON. A page is large (100 kB and more) and sent once: it is
 * serialised and written directly, without `res.json`'s general-purpose work per answer. The
 * page's `jsonItems()` texts are spliced into `items` as they are, never parsed.
 */
export function sendPage(res: Response, served: ServedPage, body: PageBody): void {
  const { page, type } = served;
  warnOnReplay(served.log, {
    type: type.id,
    pageSize: type.pageSize,
    skip: served.state.skip,
    replayed: page.replayed,
    thresholdPages: served.replayWarningPages ?? DEFAULT_REPLAY_WARNING_PAGES,
    operationId: served.operationId,
  });
  // Written as a string: Node encodes it straight into the socket's write (with the headers, in
  // one write). A Buffer of the page made here first would be a second copy, an external
  // allocation of 100 kB and more per page for the garbage collector to track and free.
  const text = page.raw.length === 0 ? JSON.stringify(body) : undefined;
  const bytes = text === undefined ? spliced(body, page.raw) : undefined;
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': text === undefined ? bytes!.length : Buffer.byteLength(text),
    [REPLAYED_ROWS_HEADER]: String(page.replayed),
  });
  res.end(text ?? bytes);
}

/**
 * The body's JSON with the raw segments inside `items`, each before the item it was yielded
 * before: runs of serialised items and raw texts, without their outer brackets, joined by commas
 * (empty ones left out). The rest of the body follows `items` as `JSON.stringify` writes it. The
 * parts stay separate strings and are encoded once, each straight into its place in the answer:
 * joining them as one string first would copy each large text again into the JavaScript heap (half
 * a megabyte a page, which made the garbage collector run every few pages), and encoding them one
 * by one into buffers of their own would copy the page twice.
 */
function spliced(body: PageBody, raw: readonly RawSegment[]): Buffer {
  const { items, ...rest } = body;
  const parts: string[] = ['{"items":['];
  let from = 0;
  const add = (part: string) => {
    if (parts.length > 1) parts.push(',');
    parts.push(part);
  };
  const plain = (to: number) => {
    if (to > from) add(JSON.stringify(items.slice(from, to)).slice(1, -1));
    from = to;
  };
  for (const segment of raw) {
    plain(segment.at);
    const inner = innerOf(segment.text);
    if (inner !== null) add(inner);
  }
  plain(items.length);
  const others = JSON.stringify(rest);
  parts.push(others === '{}' ? ']}' : `],${others.slice(1)}`);
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const part of parts) at += out.write(part, at);
  return out;
}

/** A JSON array's text between its brackets; null when it holds only white space. */
function innerOf(text: string): string | null {
  const inner = text.slice(text.indexOf('[') + 1, text.lastIndexOf(']'));
  return inner.trim() === '' ? null : inner;
}
