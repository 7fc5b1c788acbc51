import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { nextSlot, type WindowState } from './budget-store.js';

describe('sliding-window slots', () => {
  test('never more than `requests` slots in any window, slots in order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 10, max: 1000 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 60 }),
        (requests, perMs, gaps) => {
          let state: WindowState = { slots: [], blockedUntil: 0 };
          let now = 0;
          const slots: number[] = [];
          for (const gap of gaps) {
            now += gap;
            const next = nextSlot(state, { requests, perMs }, now);
            expect(next.slot).toBeGreaterThanOrEqual(now);
            slots.push(next.slot);
            state = next;
          }
          for (let i = 1; i < slots.length; i++) expect(slots[i]).toBeGreaterThanOrEqual(slots[i - 1]!);
          for (let i = requests; i < slots.length; i++) {
            expect(slots[i]! - slots[i - requests]!).toBeGreaterThanOrEqual(perMs);
          }
        },
      ),
    );
  });

  test('a burst of 7 at 3 per second: 3 at once, then one window later, then two', () => {
    let state: WindowState = { slots: [], blockedUntil: 0 };
    const slots: number[] = [];
    for (let i = 0; i < 7; i++) {
      const next = nextSlot(state, { requests: 3, perMs: 1000 }, 0);
      slots.push(next.slot);
      state = next;
    }
    expect(slots).toEqual([0, 0, 0, 1000, 1000, 1000, 2000]);
  });

  test('a refusal horizon delays the next slot', () => {
    const next = nextSlot({ slots: [], blockedUntil: 500 }, { requests: 3, perMs: 1000 }, 100);
    expect(next.slot).toBe(500);
  });
});
