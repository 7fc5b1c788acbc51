import type { CommandResult } from './dispatcher.js';
import { failedElement, shapeResult } from './result-shape.js';

// The answer of POST /api/commands as JSON text, with parts made ahead of time. A bulk create's
// results are known before its COPY is answered (created-result.ts), so their JSON text can be
// made while the database works instead of after, when the answer is all that is left to do. Only
// for HTTP callers: the router marks the command array it hands over, so in-process callers
// (which never serialise) are not charged for the text.

const wanted = new WeakSet<object>();
const texts = new WeakMap<object, string>();

/** Marks `commands` (a request's body) as answered in JSON: text may be made ahead for its results. */
export function answerInJson(commands: unknown): void {
  if (Array.isArray(commands)) wanted.add(commands);
}

export function answersInJson(commands: unknown): boolean {
  return Array.isArray(commands) && wanted.has(commands);
}

/** `text` is JSON.stringify(value); `value` must not change afterwards. */
export function rememberJson(value: object, text: string): void {
  texts.set(value, text);
}

/**
 * The results of `commands` as the API answers them (shaped as result-shape.ts says), as JSON
 * text. Text made ahead is already in that shape.
 */
export function commandResultsJson(results: CommandResult[], commands: readonly unknown[]): string {
  const parts = results.map((r, i) => {
    if (!r.success) return JSON.stringify(failedElement(r.error));
    const text = typeof r.result === 'object' && r.result !== null ? texts.get(r.result) : undefined;
    return text === undefined
      ? JSON.stringify({ success: true, result: shapeResult(commands[i], r.result) })
      : `{"success":true,"result":${text}}`;
  });
  return `[${parts.join(',')}]`;
}
