/** Thrown for a mistake in the kit's own options (not a failure of the app); the CLI exits 2. */
export class ConformanceOptionsError extends Error {
  override readonly name = 'ConformanceOptionsError';
}
