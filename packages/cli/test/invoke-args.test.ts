// `weft invoke`'s arguments read in-process: --since phrases become the start of their range,
// --filter values that read as JSON are sent as JSON, and the operation's own options are refused
// on another operation.
import { describe, expect, it } from 'vitest';
import { readInvokeArgs, readSince } from '../src/commands/invoke-args.js';
import { UsageError } from '../src/io.js';

const URL = 'http://127.0.0.1:3101';

describe('weft invoke arguments', () => {
  it('reads --since as an ISO time, or a phrase whose range starts at local midnight', () => {
    expect(readSince('2026-11-01T10:00:00Z')).toBe('2026-11-01T10:00:00.000Z');
    const now = new Date(2026, 10, 22, 15, 30);
    expect(readSince('yesterday', now)).toBe(new Date(2026, 10, 21).toISOString());
    expect(readSince('last 3 days', now)).toBe(new Date(2026, 10, 20).toISOString());
    expect(() => readSince('to 1-10-2026', now)).toThrow(/has no start/);
    expect(() => readSince('next blursday', now)).toThrow(UsageError);
  });

  it('sends filter values that read as JSON as JSON, and phrases as text', () => {
    const args = readInvokeArgs(
      URL,
      'data',
      ['book'],
      {
        filter: ['genre=fiction', 'ids=["a","b"]', 'year=1999', 'published=last 3 years', 'when=2024-01-01'],
      },
      process.cwd(),
    );
    expect(args.filter).toEqual({
      genre: 'fiction',
      ids: ['a', 'b'],
      year: 1999,
      published: 'last 3 years',
      when: '2024-01-01',
    });
    expect(args.operation).toEqual({ name: 'data', type: 'book' });
  });

  it('refuses options of another operation', () => {
    expect(() => readInvokeArgs(URL, 'schema', [], { filter: [], since: 'today' }, process.cwd())).toThrow(
      '--since is for data only',
    );
    expect(() => readInvokeArgs(URL, 'validate', ['x'], { filter: [] }, process.cwd())).toThrow(
      'validate takes no argument',
    );
  });
});
