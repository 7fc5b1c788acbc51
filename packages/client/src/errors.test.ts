import { describe, expect, test } from 'vitest';
import { redact, WorkspaceError } from './errors.js';

describe('WorkspaceError', () => {
  test('names the command, its position and the service message', () => {
    const error = new WorkspaceError({
      kind: 'command',
      command: 'svc.entity/create',
      index: 2,
      serviceMessage: 'Unknown field Tracker/Nmae',
    });
    expect(error.message).toBe('svc.entity/create at 2 in the batch: Unknown field Tracker/Nmae');
    expect(error).toBeInstanceOf(Error);
    expect(error.toJSON()).toMatchObject({ kind: 'command', command: 'svc.entity/create', index: 2 });
  });

  test('secrets in a service message are redacted', () => {
    const error = new WorkspaceError({
      kind: 'http',
      status: 401,
      serviceMessage:
        'bad header Authorization: Token abcdef123456 for postgres://weft:hunter2@db/x token=zzz999',
    });
    expect(error.message).not.toContain('abcdef123456');
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('zzz999');
    expect(redact('Bearer 0123456789abcdef')).toBe('Bearer [redacted]');
  });
});
