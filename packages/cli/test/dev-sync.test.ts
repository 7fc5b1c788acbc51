// The line `weft dev` prints after a sync says truthfully how it synced: a run the app answered
// full for some types and delta for others is not called full.
import { describe, expect, it } from 'vitest';
import { syncKind } from '../src/commands/dev-sync.js';

type Run = Parameters<typeof syncKind>[0];
const run = (fields: Partial<Run>) => ({ mode: 'full', fullReason: null, ...fields }) as Run;

describe('syncKind', () => {
  it('names a delta, a full sync and why it was made full', () => {
    expect(syncKind(run({ mode: 'delta', typeModes: { book: 'delta' } }))).toBe(' · delta');
    expect(syncKind(run({ typeModes: { book: 'full' } }))).toBe(' · full');
    expect(syncKind(run({ fullReason: "the app's schema changed" }))).toBe(
      " · full: the app's schema changed",
    );
  });
  it('tells which types were full and which delta when the app answered both', () => {
    expect(syncKind(run({ typeModes: { genre: 'full', author: 'full', book: 'delta' } }))).toBe(
      ' · full for genre, author; delta for book',
    );
  });
});
