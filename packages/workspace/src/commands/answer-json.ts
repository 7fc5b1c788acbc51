import type { CommandResult } from './dispatcher.js';

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

/** The results as the API answers them (errors without their HTTP status), as JSON text. */
export function commandResultsJson(results: CommandResult[]): string {
  const parts = results.map((r) => {
    if (!r.success) return JSON.stringify({ success: false, error: r.error });
    const text = typeof r.result === 'object' && r.result !== null ? texts.get(r.result) : undefined;
    return text === undefined ? JSON.stringify(r) : `{"success":true,"result":${text}}`;
  });
  return `[${parts.join(',')}]`;
}
