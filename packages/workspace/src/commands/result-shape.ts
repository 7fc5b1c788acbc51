// The results of POST /api/commands as the service's own clients read them. In-process callers
// (the app host, scripts, automations) get the dispatcher's plain values; only the HTTP answer
// takes this shape:
// - a failed command carries its error under `result` (every client written for the service reads
//   `result.message`) and, as before, under `error`;
// - each inner result of svc.command/batch is an element {success: true, result} (the service's
//   clients read `success` of each); a failing inner command fails the whole batch, so an inner
//   element is never a failure.

const BATCH = 'svc.command/batch';

type Args = Record<string, unknown>;
const isObject = (v: unknown): v is Args => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The inner commands of `command` when it is a svc.command/batch, else undefined. */
function innerCommands(command: unknown): unknown[] | undefined {
  if (!isObject(command) || command.command !== BATCH || !isObject(command.args)) return undefined;
  return Array.isArray(command.args.commands) ? command.args.commands : undefined;
}

/** The result of `command` as answered: a batch's inner results wrapped, at every level. */
export function shapeResult(command: unknown, result: unknown): unknown {
  const inner = innerCommands(command);
  if (!inner || !Array.isArray(result)) return result;
  return result.map((r, i) => ({ success: true, result: shapeResult(inner[i], r) }));
}

/**
 * The service's `name` of an error (its API docs: "Stable error code, safe to switch on"): the
 * service's own where its docs or its clients show it, else weft's code under `weft.error/`.
 */
const SERVICE_NAMES: Record<string, string> = {
  'unknown-type': 'entity.error/schema-type-not-found',
  'unknown-field': 'entity.error/schema-field-not-found',
};
export const errorName = (code: string) => SERVICE_NAMES[code] ?? `weft.error/${code}`;

/** A failed command's element: the error ({name, message, code, status}) under `result` and `error`. */
export function failedElement(error: { message: string; code: string; status: number }) {
  const named = { name: errorName(error.code), ...error };
  return { success: false, result: named, error: named };
}

/**
 * The JSON text of a batch's results that are all created entities, made ahead of time
 * (answer-json.ts): only the whole of a top-level svc.command/batch is answered this way.
 */
export function createdBatchJson(results: readonly unknown[]): string {
  // One stringify of wrapped rows: about as fast as the bare array's (a stringify per row and
  // concatenation took twice as long on 2,000 rows).
  return JSON.stringify(results.map((result) => ({ success: true, result })));
}
