// POST /api/commands, with same-tick coalescing: commands issued while the event loop is in one
// turn are sent as one request (several, when more than `maxBatch`), and each caller gets back
// its own element of the answer, or its own error.
import type { NamespaceCodec } from '@weft/namespace';
import { WorkspaceError } from '../errors.js';
import type { Transport } from '../http/transport.js';
import { type Command, isReadOnly, settle } from './command.js';

interface Pending {
  command: Command;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

export interface CommandChannelOptions {
  /** Most commands in one request. 1 turns coalescing off. */
  maxBatch: number;
  /** renames commands into the workspace's namespace and answers back (none for svc) */
  names?: { in: NamespaceCodec; out: NamespaceCodec } | undefined;
}

export class CommandChannel {
  #queue: Pending[] = [];
  #scheduled = false;

  constructor(
    readonly transport: Transport,
    readonly options: CommandChannelOptions,
  ) {}

  /** Sends one command, coalesced with others issued in the same turn. Resolves to its result. */
  run(command: Command): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ command, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // setImmediate runs after every promise continuation of this turn, so `await`-free loops
        // and Promise.all over many calls land in one batch.
        setImmediate(() => this.#flush());
      }
    });
  }

  /** Sends these commands as one request now; resolves to the raw answer elements. */
  async send(commands: Command[]): Promise<unknown[]> {
    const names = this.options.names;
    const raw = await this.transport.json<unknown>({
      method: 'POST',
      path: '/api/commands',
      json: names ? names.out.commands(commands) : commands,
      idempotent: commands.every(isReadOnly),
    });
    const answer = names ? names.in.results(commands, raw) : raw;
    if (!Array.isArray(answer) || answer.length !== commands.length) {
      throw new WorkspaceError({
        kind: 'protocol',
        serviceMessage: `expected ${commands.length} results, got ${Array.isArray(answer) ? answer.length : typeof answer}`,
        request: 'POST /api/commands',
      });
    }
    return answer;
  }

  #flush(): void {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    for (let i = 0; i < queue.length; i += this.options.maxBatch) {
      void this.#sendChunk(queue.slice(i, i + this.options.maxBatch));
    }
  }

  async #sendChunk(chunk: Pending[]): Promise<void> {
    let answer: unknown[];
    try {
      answer = await this.send(chunk.map((p) => p.command));
    } catch (error) {
      for (const p of chunk) p.reject(blame(error, chunk.length === 1 ? p.command : undefined));
      return;
    }
    chunk.forEach((p, index) => {
      try {
        p.resolve(settle(answer[index], p.command, index));
      } catch (error) {
        p.reject(error);
      }
    });
  }
}

/** An error of the whole request: name the command when the request carried only one. */
function blame(error: unknown, command: Command | undefined): unknown {
  if (!(error instanceof WorkspaceError) || !command || error.command) return error;
  return new WorkspaceError({
    kind: error.kind,
    serviceMessage: error.serviceMessage,
    status: error.status,
    request: error.request,
    command: command.command,
    index: 0,
    retryable: error.retryable,
  });
}
