import { DateRangeError, parseDateRange } from '@weft/date-range';
import { ConformanceOptionsError } from './errors.js';

/**
 * Turns the values of `date` filters given as grammar text ("last 3 months") into the
 * `{_min, _max}` object the service sends. Other values pass through unchanged.
 */
export function resolveDateFilters(
  filters: readonly { id: string; type: string }[],
  values: Record<string, unknown> | undefined,
  now: Date | string,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(values ?? {}) };
  for (const filter of filters) {
    const value = out[filter.id];
    if (filter.type !== 'date' || typeof value !== 'string') continue;
    try {
      out[filter.id] = parseDateRange(value, { now });
    } catch (error) {
      if (error instanceof DateRangeError) {
        throw new ConformanceOptionsError(`filter \`${filter.id}\`: ${error.message}`);
      }
      throw error;
    }
  }
  return out;
}
