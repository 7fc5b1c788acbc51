// Whether an app's answer says it has no such endpoint: an optional endpoint (filter/validate,
// the webhook endpoints) the app does not implement. Express answers 404; Go's ServeMux, with a
// `GET /` route for the descriptor, answers every other method on any path 405; some frameworks
// answer 501. The service's side then goes on without it, as the service does.

const MISSING = new Set([404, 405, 501]);

export function isMissingEndpoint(status: number | undefined): boolean {
  return status !== undefined && MISSING.has(status);
}
