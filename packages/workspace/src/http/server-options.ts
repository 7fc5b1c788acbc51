/**
 * Options for the HTTP server the app runs in. A request's body is read from its connection while
 * its token is looked up (up to this much, a bulk write's batch), rather than left in the
 * connection until the lookup answers: the lookup's round trip no longer comes before the body's
 * reading in every request. Node enforces the header and request timeouts when it checks its
 * connections, every 30 s by default: every second instead, as core's servers do.
 */
export const SERVER_OPTIONS = { highWaterMark: 1 << 20, connectionsCheckingInterval: 1_000 } as const;

/**
 * The server's limits (core's hardenServer): its connection cap, headers timeout and keep-alive
 * timeout are core's; a whole request may take a minute to arrive (core's apps: 30 s), so that a
 * 100 MB upload or a 64 MB command batch still arrives over a modest link.
 */
export const SERVER_LIMITS = { requestTimeoutMs: 60_000 } as const;
