// The one error the client throws. It names what failed (the command and its position in the
// request's batch, or the HTTP call) and carries the service's own message, never a token or
// header value: messages pass through `redact` before they are stored.

export type WorkspaceErrorKind =
  /** The service ran the request and reported that a command failed. */
  | 'command'
  /** The service answered with an HTTP error status. */
  | 'http'
  /** The request never got an answer (connection refused, reset, timed out). */
  | 'network'
  /** The answer did not have the shape the data API promises. */
  | 'protocol';

export interface WorkspaceErrorDetails {
  kind: WorkspaceErrorKind;
  /** The service's message, as it sent it (redacted). */
  serviceMessage: string;
  /** HTTP status of the answer, when there was one. */
  status?: number;
  /** Command name (`svc.entity/create`, ...) when the failure belongs to one command. */
  command?: string;
  /** Position of that command in the request it was sent in (0-based). */
  index?: number;
  /** Path inside nested batches: `[2, 0]` is the first inner command of the third command. */
  path?: number[];
  /** Method and path of the HTTP call (no query string, no host). */
  request?: string;
  /** Whether the client may send the same request again without changing anything. */
  retryable?: boolean;
}

export class WorkspaceError extends Error {
  readonly kind: WorkspaceErrorKind;
  readonly serviceMessage: string;
  readonly status: number | undefined;
  readonly command: string | undefined;
  readonly index: number | undefined;
  readonly path: number[] | undefined;
  readonly request: string | undefined;
  readonly retryable: boolean;

  constructor(details: WorkspaceErrorDetails) {
    const serviceMessage = redact(details.serviceMessage);
    super(describe({ ...details, serviceMessage }));
    this.name = 'WorkspaceError';
    this.kind = details.kind;
    this.serviceMessage = serviceMessage;
    this.status = details.status;
    this.command = details.command;
    this.index = details.index;
    this.path = details.path;
    this.request = details.request;
    this.retryable = details.retryable ?? false;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      kind: this.kind,
      status: this.status,
      command: this.command,
      index: this.index,
      path: this.path,
      request: this.request,
    };
  }
}

function describe(d: WorkspaceErrorDetails): string {
  const where: string[] = [];
  if (d.command !== undefined) where.push(d.command);
  if (d.path !== undefined && d.path.length > 0) where.push(`at ${d.path.join('.')} in the batch`);
  else if (d.index !== undefined) where.push(`at ${d.index} in the batch`);
  if (d.request !== undefined) where.push(`(${d.request}${d.status === undefined ? '' : ` → ${d.status}`})`);
  else if (d.status !== undefined) where.push(`(HTTP ${d.status})`);
  return `${where.length > 0 ? `${where.join(' ')}: ` : ''}${d.serviceMessage}`;
}

// Anything that looks like a credential in a message the client did not write itself.
const SECRET_PATTERNS: RegExp[] = [
  /\b(Token|Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi,
  /\b(authorization|token|password|secret|api[_-]?key)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi,
  /(\/\/[^/\s:@]+:)[^@\s/]+@/g,
];

/** Removes token- and password-like values from a text. */
export function redact(text: string): string {
  let out = text;
  out = out.replace(SECRET_PATTERNS[0]!, '$1 [redacted]');
  out = out.replace(SECRET_PATTERNS[1]!, '$1$2[redacted]');
  out = out.replace(SECRET_PATTERNS[2]!, '$1[redacted]@');
  return out;
}
