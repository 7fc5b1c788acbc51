import { datalistResponse, PROTOCOL_PATHS } from '@weft/core/protocol';
import { type Context, formatIssues, jsonAnswerProblem } from '../context.js';
import type { FilterInfo } from './config.js';

/**
 * Asks the datalist of every `datalist` filter. `dependsOn` holds, for each filter named in
 * `datalist_requires`, the value given in the filter option, else the first value of that
 * filter's own datalist (fetched first).
 */
export async function checkDatalists(
  ctx: Context,
  types: string[],
  filters: FilterInfo[],
  filterValues: Record<string, unknown>,
  account: Record<string, unknown> | undefined,
): Promise<void> {
  const lists = filters.filter((f) => f.datalist);
  if (lists.length === 0) {
    ctx.skip('datalist.response', { reason: 'no filter has `datalist: true`' });
    return;
  }
  const byId = new Map(filters.map((f) => [f.id, f]));
  const fetched = new Map<string, Promise<unknown>>();

  const fetchList = (filter: FilterInfo, visiting: Set<string>): Promise<unknown> => {
    const known = fetched.get(filter.id);
    if (known) return known;
    const promise = (async () => {
      const dependsOn: Record<string, unknown> = {};
      for (const requiredId of filter.requires) {
        if (requiredId in filterValues) dependsOn[requiredId] = filterValues[requiredId];
        else {
          const required = byId.get(requiredId);
          if (required?.datalist && !visiting.has(requiredId)) {
            dependsOn[requiredId] = await fetchList(required, new Set([...visiting, filter.id]));
          }
        }
      }
      const ex = await ctx.call('POST', PROTOCOL_PATHS.datalist, {
        types,
        account: account ?? {},
        field: filter.id,
        dependsOn,
      });
      let problem = jsonAnswerProblem(ex);
      let first: unknown;
      if (!problem) {
        const parsed = datalistResponse.safeParse(ex.json);
        if (parsed.success) first = parsed.data.items[0]?.value;
        else problem = `expected {items: [{title, value}]}: ${formatIssues(parsed.error.issues)}`;
      }
      ctx.expect('datalist.response', problem, { subject: filter.id, exchange: ex });
      return first;
    })();
    fetched.set(filter.id, promise);
    return promise;
  };

  for (const filter of lists) await fetchList(filter, new Set());
}
