import { clip } from '@weft/core/redact';

// What a run record (a sync run's error, an automation run's message and answer) keeps of what
// an app said. An app is a third party: its message or answer may be megabytes, and a run record
// is read by every page that lists runs, so it keeps a bounded excerpt.

/** Characters of a run's error or message kept. */
export const MAX_RUN_MESSAGE = 2000;
/** Bytes of an automation run's answer (as JSON) kept; a larger answer is replaced by a note. */
export const MAX_RUN_ANSWER_BYTES = 64 * 1024;

export function runMessage(message: string): string {
  return clip(message, MAX_RUN_MESSAGE);
}

/** The answer as stored: itself when small, else a note of its size (a cut JSON is no JSON). */
export function runAnswerJson(answer: unknown): string {
  const json = JSON.stringify(answer ?? null) ?? 'null';
  const bytes = Buffer.byteLength(json);
  return bytes <= MAX_RUN_ANSWER_BYTES ? json : JSON.stringify({ truncated: true, bytes });
}

/**
 * Exchanges (data requests) recorded per sync run: past these the run's pages go on unrecorded,
 * and the page says so. Each one's request and error body are clipped (MAX_SUMMARY_TEXT).
 */
export const MAX_RUN_EXCHANGES = 500;
/** Runs per source whose exchanges are kept: older runs keep their totals, not their exchanges. */
export const RUNS_WITH_EXCHANGES = 20;
