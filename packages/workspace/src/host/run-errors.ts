import { AppCallError } from '@weft/sync-engine';

// A failed app call as a run records it: which call, and for data which type and page, then what
// was wrong in words a developer acts on, e.g.
//   Sync failed: data of type venue, page 1: items must be an array (got an object)
// The app's own message is kept as it is; a malformed answer's schema issue is reworded. Never
// anything of the request (which holds the account).

/** `<path>: unexpected answer (<where>: <zod message>)`, as the sync engine words a malformed answer. */
const UNEXPECTED = /^\S*: unexpected answer \((.+?): (.+)\)$/s;
/** zod's wording of a wrong type: "Invalid input: expected array, received object". */
const WRONG_TYPE = /^Invalid input: expected (\w+), received (\w+)$/;

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

/** What was wrong, without the endpoint (the run names the call itself). */
function detail(error: AppCallError): string {
  if (error.appMessage !== undefined) return error.appMessage;
  const unexpected = UNEXPECTED.exec(error.message);
  if (unexpected) {
    const [, where, issue] = unexpected as unknown as [string, string, string];
    const wrong = WRONG_TYPE.exec(issue);
    return wrong
      ? `${where} must be ${article(wrong[1] as string)} (got ${article(wrong[2] as string)})`
      : `${where}: ${issue}`;
  }
  // "POST /path: why" → "why"
  return error.message.replace(/^(?:[A-Z]+ )?\/\S*: /, '');
}

/**
 * The error of an app call during a run, naming the call (`schema`, `validate`, or `data of type
 * <t>, page <n>`). It stays an AppCallError (an app's answer: not worth another try of the job),
 * keeping the original's status and retryability.
 */
export function callError(call: string, error: unknown): unknown {
  if (!(error instanceof AppCallError) || error.message.startsWith('Sync failed: ')) return error;
  return new AppCallError(`Sync failed: ${call}: ${detail(error)}`, {
    path: error.path,
    status: error.status,
    ...(error.appMessage !== undefined ? { appMessage: error.appMessage } : {}),
    tryLater: error.tryLater,
    retryable: error.retryable,
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  });
}
