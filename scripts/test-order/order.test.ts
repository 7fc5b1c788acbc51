import { describe, expect, it } from 'vitest';
import { refreshed, slowestFirst } from './order.js';

describe('slowestFirst', () => {
  it('starts the longest files first, across projects', () => {
    const durations = { 'a:x.test.ts': 3, 'b:y.test.ts': 90, 'c:z.test.ts': 12 };
    expect(slowestFirst(['a:x.test.ts', 'b:y.test.ts', 'c:z.test.ts'], durations)).toEqual([
      'b:y.test.ts',
      'c:z.test.ts',
      'a:x.test.ts',
    ]);
  });

  it('places a file it does not know as a median one, and keeps the given order among equals', () => {
    const durations = { 'a:1': 1, 'a:5': 5, 'a:50': 50 };
    // The median is 5 s: the new files rank with a:5, before it as given before it.
    expect(slowestFirst(['a:1', 'new:p', 'a:50', 'new:q', 'a:5'], durations)).toEqual([
      'a:50',
      'new:p',
      'new:q',
      'a:5',
      'a:1',
    ]);
  });
});

describe('refreshed', () => {
  it('takes the new durations in seconds, leaves out failed runs, drops files gone, longest first', () => {
    const table = { 'a:kept': 4, 'a:gone': 9, 'a:failed': 2 };
    const next = refreshed(
      table,
      [
        ['a:kept', { duration: 61_234, failed: false }],
        ['a:failed', { duration: 90_000, failed: true }],
        ['b:new', { duration: 800, failed: false }],
      ],
      (key) => key !== 'a:gone',
    );
    expect(next).toEqual({ 'a:kept': 61.2, 'a:failed': 2, 'b:new': 0.8 });
    expect(Object.keys(next)).toEqual(['a:kept', 'a:failed', 'b:new']);
  });
});
