// The outbound policy's failures. Their messages are fit to show a user: they name the refused
// address class but never the address a name resolved to, and never anything a refused host said
// (it is never connected to). A connection that fails for any other reason gives one message
// whatever the cause, so an answer tells nothing about which ports are open.

export class OutboundError extends Error {
  override readonly name: string = 'OutboundError';
}

/** The address (after DNS, or of any redirect) is of a class the policy refuses. */
export class OutboundRefusedError extends OutboundError {
  override readonly name = 'OutboundRefusedError';
  constructor(readonly addressClass: string) {
    super(
      `The address is refused: ${addressClass} addresses are not fetched from (an administrator may allow them with WEFT_OUTBOUND_ALLOW_PRIVATE or WEFT_OUTBOUND_ALLOW)`,
    );
  }
}

/** The answer's body is larger than the call's limit. */
export class OutboundTooLargeError extends OutboundError {
  override readonly name = 'OutboundTooLargeError';
  constructor(readonly limit: number) {
    super(`The answer is larger than ${limit} bytes`);
  }
}

export class OutboundUnreachableError extends OutboundError {
  override readonly name = 'OutboundUnreachableError';
  constructor(detail = 'The address could not be reached') {
    super(detail);
  }
}

/** The outbound error somewhere in a fetch failure's cause chain. */
export function outboundCause(error: unknown): OutboundError | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 8; depth++) {
    if (e instanceof OutboundError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
