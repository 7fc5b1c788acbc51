import { appRequests, readDatalistAnswer } from '@weft/sync-engine';
import { type Context, jsonAnswerProblem, messageOf, probeProblem } from '../context.js';
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
      const ex = await ctx.send(appRequests.datalist(filter.id, types, account ?? {}, dependsOn));
      let problem = jsonAnswerProblem(ex);
      let first: unknown;
      if (!problem) {
        const read = readDatalistAnswer(ex.json);
        if (read.ok) first = read.value.items[0]?.value;
        else problem = `expected {items: [{title, value}]}: ${read.problem}`;
      }
      ctx.expect('datalist.response', problem, { subject: filter.id, exchange: ex });
      return first;
    })();
    fetched.set(filter.id, promise);
    return promise;
  };

  for (const filter of lists) await fetchList(filter, new Set());
}

/** The field id asked for when every filter is a datalist. */
export const NOT_A_DATALIST = '__weft_conformance_not_a_datalist__';

/**
 * Datalist requests real apps hung or crashed on. `datalist.not-datalist`: a field that is not a
 * datalist filter (a form that is out of date asks it) — a 4xx `{message}` or `{items}` passes, a
 * 5xx `{message}` or another JSON answer warns, a hang or a non-JSON body fails.
 * `datalist.absent-depends-on`: each list without `dependsOn` (the service leaves it out when the
 * list depends on nothing) must answer `{items}`; a list with `datalist_requires` may refuse with
 * a 4xx `{message}` instead.
 */
export async function checkDatalistProbes(
  ctx: Context,
  types: string[],
  filters: FilterInfo[],
  account: Record<string, unknown>,
): Promise<void> {
  const lists = filters.filter((f) => f.datalist);
  if (lists.length === 0) {
    const reason = 'no filter has `datalist: true`, so the service never calls datalist';
    ctx.skip('datalist.not-datalist', { reason });
    ctx.skip('datalist.absent-depends-on', { reason });
    return;
  }
  const field = filters.find((f) => !f.datalist)?.id ?? NOT_A_DATALIST;
  const ex = await ctx.send(appRequests.datalist(field, types, account, {}));
  const status = ex.status ?? 0;
  const problem =
    probeProblem(ex) ?? (status < 300 && !ex.isJson ? `HTTP ${status} with a non-JSON body` : undefined);
  if (problem) ctx.fail('datalist.not-datalist', { subject: field, reason: problem, exchange: ex });
  else if (status >= 500)
    ctx.warn('datalist.not-datalist', {
      subject: field,
      reason: `HTTP ${status}${messageOf(ex)}; a field without a list is a bad request: 400/404 {message}`,
      exchange: ex,
    });
  else if (status >= 400)
    ctx.pass('datalist.not-datalist', { subject: field, reason: `refused with HTTP ${status}` });
  else if (readDatalistAnswer(ex.json).ok)
    ctx.pass('datalist.not-datalist', { subject: field, reason: 'answered a list' });
  else
    ctx.warn('datalist.not-datalist', {
      subject: field,
      reason: `HTTP ${status} but not {items: [{title, value}]}`,
      exchange: ex,
    });

  for (const filter of lists) {
    const res = await ctx.send(appRequests.datalist(filter.id, types, account));
    const s = res.status ?? 0;
    let bad = probeProblem(res);
    if (!bad && s >= 500) bad = `HTTP ${s}${messageOf(res)}`;
    else if (!bad && s >= 400 && filter.requires.length === 0)
      bad = `HTTP ${s}${messageOf(res)}; the list depends on no filter, so \`dependsOn\` is not needed`;
    else if (!bad && s < 400) {
      bad = jsonAnswerProblem(res);
      if (!bad) {
        const read = readDatalistAnswer(res.json);
        if (!read.ok) bad = `expected {items: [{title, value}]}: ${read.problem}`;
      }
    }
    ctx.expect('datalist.absent-depends-on', bad && `without \`dependsOn\`: ${bad}`, {
      subject: filter.id,
      exchange: res,
    });
  }
}
