// Answers held for the job that reads them: given out once, only for the request they were asked
// with, and dropped (their request aborted) when refused, dropped with their run, replaced, or
// not taken in time.
import { describe, expect, it } from 'vitest';
import { HeldAnswers } from './held-answers.js';

/** An ask that records its signal and answers `value` at once. */
function asking(value: string) {
  const seen: { signal?: AbortSignal } = {};
  const ask = (signal: AbortSignal) => {
    seen.signal = signal;
    return Promise.resolve(value);
  };
  return { ask, seen };
}

const never = new AbortController().signal;

describe('HeldAnswers', () => {
  it('gives an answer once, to the same request', async () => {
    const held = new HeldAnswers<string>(10_000);
    const a = asking('page 1');
    held.hold('run', 'book', '{"page":1}', never, a.ask);
    expect(held.size).toBe(1);
    await expect(held.take('run', 'book', '{"page":1}')).resolves.toBe('page 1');
    expect(held.take('run', 'book', '{"page":1}')).toBeUndefined();
    expect(held.size).toBe(0);
    // Taken, its request goes on: nothing aborts it later.
    await new Promise((r) => setTimeout(r, 20));
    expect(a.seen.signal?.aborted).toBe(false);
  });

  it('refuses another request, another type or another run, and aborts what it refused', () => {
    const held = new HeldAnswers<string>(10_000);
    const a = asking('a');
    const b = asking('b');
    held.hold('run', 'book', 'x', never, a.ask);
    held.hold('run', 'author', 'x', never, b.ask);
    expect(held.take('other-run', 'book', 'x')).toBeUndefined();
    expect(held.take('run', 'shelf', 'x')).toBeUndefined();
    expect(held.size).toBe(2);
    expect(held.take('run', 'book', 'y')).toBeUndefined();
    expect(a.seen.signal?.aborted).toBe(true);
    // Refused once, it is gone: the page job asks itself.
    expect(held.take('run', 'book', 'x')).toBeUndefined();
    expect(b.seen.signal?.aborted).toBe(false);
  });

  it('drops a run’s answers only, aborting their requests', () => {
    const held = new HeldAnswers<string>(10_000);
    const a = asking('a');
    const b = asking('b');
    const c = asking('c');
    held.hold('run-1', 'book', 'x', never, a.ask);
    held.hold('run-1', 'author', 'x', never, b.ask);
    held.hold('run-10', 'book', 'x', never, c.ask);
    held.drop('run-1');
    expect([a.seen.signal?.aborted, b.seen.signal?.aborted, c.seen.signal?.aborted]).toEqual([
      true,
      true,
      false,
    ]);
    expect(held.take('run-1', 'book', 'x')).toBeUndefined();
    expect(held.take('run-10', 'book', 'x')).toBeDefined();
  });

  it('replaces an answer held for the same run and key, aborting the first', async () => {
    const held = new HeldAnswers<string>(10_000);
    const first = asking('first');
    const second = asking('second');
    held.hold('run', 'book', 'x', never, first.ask);
    held.hold('run', 'book', 'x', never, second.ask);
    expect(first.seen.signal?.aborted).toBe(true);
    expect(held.size).toBe(1);
    await expect(held.take('run', 'book', 'x')).resolves.toBe('second');
  });

  it('drops an answer nobody takes in time', async () => {
    const held = new HeldAnswers<string>(30);
    const a = asking('late');
    held.hold('run', 'book', 'x', never, a.ask);
    await new Promise((r) => setTimeout(r, 120));
    expect(a.seen.signal?.aborted).toBe(true);
    expect(held.size).toBe(0);
    expect(held.take('run', 'book', 'x')).toBeUndefined();
  });

  it('aborts a held request when the given signal aborts (the host closes)', () => {
    const held = new HeldAnswers<string>(10_000);
    const closing = new AbortController();
    const a = asking('a');
    held.hold('run', 'book', 'x', closing.signal, a.ask);
    expect(a.seen.signal?.aborted).toBe(false);
    closing.abort();
    expect(a.seen.signal?.aborted).toBe(true);
    // Its answer is an abort, not the app's: the page job asks again.
    expect(held.take('run', 'book', 'x')).toBeUndefined();
    expect(held.size).toBe(0);
  });
});
