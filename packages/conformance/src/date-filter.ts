import { ConformanceOptionsError } from './errors.js';

/**
 * Turns the values of `date` filters given as grammar text ("last 3 months") into the
 * `{_min, _max}` object the service sends. Other values pass through unchanged. The grammar's
 * parser (chrono-node and its locales, about 10 MB resident) is loaded only when a value needs it.
 */
export async function resolveDateFilters(
  filters: readonly { id: string; type: string }[],
  values: Record<string, unknown> | undefined,
  now: Date | string,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { ...(values ?? {}) };
  for (const filter of filters) {
    const value = out[filter.id];
    if (filter.type !== 'date' || typeof value !== 'string') continue;
    const { DateRangeError, parseDateRange } = await import('@weft/date-range');
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
