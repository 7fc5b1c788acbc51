/** Thrown for a mistake in the kit's own options (not a failure of the app); the CLI exits 2. */
export class ConformanceOptionsError extends Error {
  override readonly name = 'ConformanceOptionsError';
}

/**
 * Nothing listens at the app's address (connection refused, unknown host): the run cannot start.
 * Not a finding about the app; the CLI exits 2 with "is the app running at <url>?".
 */
export class AppUnreachableError extends Error {
  override readonly name = 'AppUnreachableError';
  constructor(
    readonly url: string,
    readonly code: string,
  ) {
    super(`could not connect to ${url} (${code}): is the app running at ${url}?`);
  }
}
