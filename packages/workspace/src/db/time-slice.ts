// PGlite runs each statement on this thread, and its promises settle as microtasks only: a chain
// of statements (a request of thousands of commands) never lets the event loop turn, so no other
// request is read, no timer fires and no hang-up is noticed until the chain ends. Statements of
// PGlite therefore yield to the event loop once a slice of this long has passed since the last
// yield: other requests take their turn in between, at the cost of one setImmediate per slice.

export const SLICE_MS = 10;

let last = performance.now();

/** Resolves at once within a slice; after a macrotask turn once the slice is spent. */
export function timeSlice(): Promise<void> | undefined {
  const now = performance.now();
  if (now - last < SLICE_MS) return undefined;
  return new Promise((resolve) =>
    setImmediate(() => {
      last = performance.now();
      resolve();
    }),
  );
}
