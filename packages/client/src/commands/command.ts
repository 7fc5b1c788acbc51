// Commands as the service takes them, and reading its per-command results.
import { WorkspaceError } from '../errors.js';

export interface Command {
  command: string;
  args?: Record<string, unknown>;
  correlationId?: string;
}

/** Commands that only read: safe to send again after a failure. */
const READ_ONLY = new Set(['svc.entity/query', 'svc.schema/query']);

export function isReadOnly(command: Command): boolean {
  if (READ_ONLY.has(command.command)) return true;
  if (command.command === 'svc.command/batch') {
    const inner = command.args?.commands;
    return Array.isArray(inner) && inner.every((c) => isReadOnly(c as Command));
  }
  return false;
}

/** Turns one element of the service's answer into the command's result, or its error. */
export function settle(element: unknown, command: Command, index: number, path: number[] = [index]): unknown {
  if (element && typeof element === 'object' && (element as { success?: unknown }).success === true) {
    return (element as { result?: unknown }).result;
  }
  const failure = element as { error?: unknown; message?: unknown; index?: unknown } | null;
  let message = 'the command failed';
  let innerPath = path;
  if (failure && typeof failure === 'object') {
    const error = failure.error as
      | { message?: unknown; index?: unknown; path?: unknown }
      | string
      | undefined;
    if (typeof error === 'string') message = error;
    else if (error && typeof error.message === 'string') message = error.message;
    else if (typeof failure.message === 'string') message = failure.message;
    // A failed svc.command/batch may say which inner command failed.
    const inner = typeof error === 'object' && error ? error.index : failure.index;
    if (typeof inner === 'number') innerPath = [...path, inner];
  }
  // The local workspace prefixes an inner failure with `commands[<i>] (<name>): `, once per level.
  let prefix = /^commands\[(\d+)\] \(([^)]*)\): /.exec(message);
  while (prefix && innerPath.length <= path.length + 8) {
    innerPath = [...innerPath, Number(prefix[1])];
    message = message.slice(prefix[0].length);
    prefix = /^commands\[(\d+)\] \(([^)]*)\): /.exec(message);
  }
  const failedCommand = innerCommand(command, innerPath.slice(1));
  throw new WorkspaceError({
    kind: 'command',
    serviceMessage: message,
    command: failedCommand,
    index,
    path: innerPath,
  });
}

function innerCommand(command: Command, path: number[]): string {
  let current: Command | undefined = command;
  for (const i of path) {
    const inner: unknown = current?.args?.commands;
    if (!Array.isArray(inner) || !inner[i]) break;
    current = inner[i] as Command;
  }
  return current?.command ?? command.command;
}
