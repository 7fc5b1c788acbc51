import { formatWarning, type ReaderWarning, type ReadResult } from '@weft/sync-engine';
import type { CheckId } from '../catalog.js';
import type { Context } from '../context.js';
import type { Exchange } from '../http.js';

// The kit judges an answer with the sync engine's reader, the one the host reads it with: what
// the reader refuses (the host would refuse the answer) or leaves out (the host would not sync
// that part) fails; what it takes with a note passes, the notes in the reason.

const MAX_SHOWN = 8;

/** Lines, at most eight, then a count of the rest. */
export function listed(lines: string[]): string | undefined {
  if (lines.length === 0) return undefined;
  const shown = lines.slice(0, MAX_SHOWN);
  if (lines.length > MAX_SHOWN) shown.push(`and ${lines.length - MAX_SHOWN} more`);
  return shown.join('; ');
}

/** The notes of a read (what was taken although the spec's tables would not have it), as one reason. */
export function notesReason(warnings: readonly ReaderWarning[]): string | undefined {
  const notes = warnings.filter((w) => !w.dropped).map(formatWarning);
  return notes.length ? `taken as the service takes it: ${listed(notes)}` : undefined;
}

/**
 * One check from one read: fail with the problem, or with the parts left out (`dropped`
 * selects which of them this check owns); else pass, with the notes.
 */
export function judgeRead<T>(
  ctx: Context,
  id: CheckId,
  read: ReadResult<T>,
  input: { exchange: Exchange; subject?: string; dropped?: (w: ReaderWarning) => boolean },
): void {
  const record = { exchange: input.exchange, ...(input.subject ? { subject: input.subject } : {}) };
  if (!read.ok) {
    ctx.fail(id, { ...record, reason: read.problem });
    return;
  }
  const owned = read.warnings.filter((w) => w.dropped && (input.dropped ?? (() => true))(w));
  if (owned.length) {
    ctx.fail(id, {
      ...record,
      reason: `left out (the service would not take it): ${listed(owned.map(formatWarning))}`,
    });
    return;
  }
  const notes = notesReason(read.warnings);
  ctx.pass(id, notes ? { reason: notes } : {});
}
