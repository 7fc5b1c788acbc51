import { appRequests, readConfig } from '@weft/sync-engine';
import { type Context, jsonAnswerProblem } from '../context.js';
import { isPlainObject } from '../util.js';
import { judgeRead } from './read-verdict.js';

export interface FilterInfo {
  id: string;
  type: string;
  datalist: boolean;
  /** `optional: true`; the service always sends a value for the other filters. */
  optional: boolean;
  requires: string[];
  raw: Record<string, unknown>;
}

export interface ConfigInfo {
  types: string[];
  filters: FilterInfo[];
  webhooks: boolean;
}

export async function checkConfig(
  ctx: Context,
  account: Record<string, unknown>,
): Promise<ConfigInfo | undefined> {
  const ex = await ctx.send(appRequests.config(account));
  const problem =
    jsonAnswerProblem(ex) ?? (isPlainObject(ex.json) ? undefined : 'the config is not a JSON object');
  ctx.expect('config.response', problem, { exchange: ex });
  if (problem || !isPlainObject(ex.json)) return undefined;
  const raw = ex.json;

  const read = readConfig(raw);
  judgeRead(ctx, 'config.shape', read, { exchange: ex });
  // Read as the host reads it; a refused config is still looked into, from its raw keys.
  const config = read.ok ? read.value : undefined;
  const types = (config?.types ?? (Array.isArray(raw.types) ? raw.types : []))
    .filter(isPlainObject)
    .map((t) => t.id)
    .filter((id): id is string => typeof id === 'string' && id.length > 0);
  const rawFilters: Record<string, unknown>[] = config
    ? (config.filters ?? [])
    : (Array.isArray(raw.filters) ? raw.filters : []).filter(isPlainObject);
  const filters: FilterInfo[] = rawFilters
    .filter((f) => typeof f.id === 'string')
    .map((f) => ({
      id: f.id as string,
      type: String(f.type),
      datalist: f.datalist === true,
      optional: f.optional === true,
      requires: Array.isArray(f.datalist_requires) ? f.datalist_requires.map(String) : [],
      raw: f,
    }));

  const dupTypes = types.filter((id, i) => types.indexOf(id) !== i);
  ctx.expect(
    'config.type-ids-unique',
    dupTypes.length ? `duplicate type ids: ${[...new Set(dupTypes)].join(', ')}` : undefined,
  );
  const filterIds = filters.map((f) => f.id);
  const dupFilters = filterIds.filter((id, i) => filterIds.indexOf(id) !== i);
  ctx.expect(
    'config.filter-ids-unique',
    dupFilters.length ? `duplicate filter ids: ${[...new Set(dupFilters)].join(', ')}` : undefined,
  );

  const highlights = filters.filter((f) => f.type === 'highlightText');
  if (highlights.length === 0) ctx.skip('config.filter-editor-mode', { reason: 'no highlightText filters' });
  else {
    const bad = highlights.filter((f) => f.raw.editorMode !== 'json' && f.raw.editorMode !== 'sql');
    ctx.expect(
      'config.filter-editor-mode',
      bad.length ? `without editorMode json|sql: ${bad.map((f) => f.id).join(', ')}` : undefined,
    );
  }

  const withRequires = filters.filter((f) => f.requires.length > 0);
  if (withRequires.length === 0)
    ctx.skip('config.datalist-requires', { reason: 'no filter has `datalist_requires`' });
  else {
    const bad = withRequires.flatMap((f) =>
      f.requires.filter((r) => !filterIds.includes(r) || r === f.id).map((r) => `${f.id} requires \`${r}\``),
    );
    ctx.expect(
      'config.datalist-requires',
      bad.length ? `unknown or self references: ${bad.join(', ')}` : undefined,
    );
  }

  return {
    types: [...new Set(types)],
    filters,
    webhooks: config
      ? config.webhooks?.enabled === true
      : isPlainObject(raw.webhooks) && raw.webhooks.enabled === true,
  };
}
