import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { completeSlot, nextSlot, type WindowState } from './budget-store.js';

const empty: WindowState = { slots: [], pending: [], blockedUntil: 0 };
const limit = { requests: 3, perMs: 1000 };

/** Reserves and answers at once (the answer arrives `latency` after the slot). */
function reserveAnswered(state: WindowState, l: typeof limit, now: number, latency = 0) {
  const next = nextSlot(state, l, now);
  if (!('slot' in next.reservation)) throw new Error('unexpected wait');
  const slot = next.reservation.slot;
  return { slot, state: completeSlot(next.state, slot, slot + latency) };
}

describe('sliding-window slots', () => {
  test('never more than `requests` answered requests in any window, slots in order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 10, max: 1000 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 300 })), {
          minLength: 1,
          maxLength: 60,
        }),
        (requests, perMs, steps) => {
          let state = empty;
          let now = 0;
          const sent: number[] = [];
          const answered: number[] = [];
          for (const [gap, latency] of steps) {
            now += gap;
            const r = reserveAnswered(state, { requests, perMs }, now, latency);
            expect(r.slot).toBeGreaterThanOrEqual(now);
            sent.push(r.slot);
            answered.push(r.slot + latency);
            state = r.state;
          }
          for (let i = 1; i < sent.length; i++) expect(sent[i]).toBeGreaterThanOrEqual(sent[i - 1]!);
          // Request i+requests is sent one window after request i was answered (or later).
          for (let i = requests; i < sent.length; i++) {
            expect(sent[i]! - answered[i - requests]!).toBeGreaterThanOrEqual(perMs - 1e-6);
          }
        },
      ),
    );
  });

  test('a burst of 7 at 3 per second: 3 at once, then one window later, then two', () => {
    let state = empty;
    const slots: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = reserveAnswered(state, limit, 0);
      slots.push(r.slot);
      state = r.state;
    }
    expect(slots.map(Math.round)).toEqual([0, 0, 0, 1000, 1000, 1000, 2000]);
  });

  test('an unanswered request that bounds the next slot makes the caller ask again', () => {
    let state = empty;
    for (let i = 0; i < 3; i++) state = nextSlot(state, limit, 0).state;
    expect(nextSlot(state, limit, 5).reservation).toEqual({ retryInMs: expect.any(Number) });
    state = completeSlot(state, 0, 40);
    expect(nextSlot(state, limit, 50).reservation).toEqual({ delayMs: 990, slot: 1040 });
    expect(state.pending).toHaveLength(2);
  });

  test('an unanswered request stops counting after it expires (its process may be gone)', () => {
    let state = empty;
    for (let i = 0; i < 3; i++) state = nextSlot(state, limit, 0).state;
    expect(nextSlot(state, limit, 60_000).reservation).toEqual({ delayMs: 0, slot: 60_000 });
    expect(nextSlot(state, limit, 60_000).state.pending).toEqual([60_000]);
    expect(nextSlot(state, limit, 60_000).state.slots).toHaveLength(3);
  });

  test('a refusal horizon delays the next slot', () => {
    expect(nextSlot({ ...empty, blockedUntil: 500 }, limit, 100).reservation).toEqual({
      delayMs: 400,
      slot: 500,
    });
  });
});
