import type { FieldType } from '@weft/core/protocol';
import { z } from 'zod';
import { firstIssue, flag, isObject, num, orLeftOut, text } from './coerce.js';
import { formFieldKeys, formFieldType, label } from './form-field.js';
import { collecting, type ReadResult, result, warn } from './warning.js';

// `POST /api/v1/synchronizer/config` as the service reads it: `types` is what it needs; a type
// without `name`, a filter without `title` or with an unknown type, string booleans and numbers,
// unknown keys are taken. A filter it cannot read at all is left out, not the whole config.

export interface ReadSyncType {
  id: string;
  name: string;
  description?: string;
  default?: boolean;
  isUser?: boolean;
  [key: string]: unknown;
}

export interface ReadFilter {
  id: string;
  /** the label (from `title`, else `name`, else the id) */
  title: string;
  type: FieldType;
  datalist?: boolean;
  optional?: boolean;
  secured?: boolean;
  editorMode?: 'json' | 'sql';
  datalist_requires?: string[];
  defaultValue?: unknown;
  [key: string]: unknown;
}

export interface ReadConfig {
  types: ReadSyncType[];
  filters?: ReadFilter[];
  webhooks?: { enabled: boolean; [key: string]: unknown };
  version?: number;
  [key: string]: unknown;
}

const syncType = z
  .looseObject({
    id: text('id').pipe(z.string().min(1)),
    name: z.string().optional(),
    description: z.string().optional(),
    default: flag('default').optional(),
    isUser: flag('isUser').optional(),
  })
  .transform((t): ReadSyncType => {
    if (!t.name) warn('name', 'missing: the id is the name');
    return { ...t, name: t.name || t.id };
  });

const filter = z
  .looseObject({
    ...formFieldKeys,
    datalist: flag('datalist').optional(),
    secured: flag('secured').optional(),
  })
  .transform(
    (f): ReadFilter => ({ ...f, title: label(f, 'title'), type: formFieldType(f.type) }) as ReadFilter,
  );

const top = z.looseObject({
  types: z.array(z.unknown()),
  filters: z.array(z.unknown()).nullish(),
  webhooks: orLeftOut(
    'webhooks',
    z.looseObject({ enabled: flag('webhooks.enabled') }),
    'read as no webhooks',
  ),
  version: orLeftOut('version', num('version')),
});

const idOf = (v: unknown, i: number) => (isObject(v) && typeof v.id === 'string' ? v.id : String(i));

/** Reads the config answer as the service does. */
export function readConfig(raw: unknown): ReadResult<ReadConfig> {
  const { value, warnings } = collecting('config', (): ReadConfig | string => {
    if (!isObject(raw)) return 'body: not a JSON object';
    const parsed = top.safeParse(raw);
    if (!parsed.success) return firstIssue(parsed.error);
    const { filters: rawFilters, ...rest } = parsed.data;
    const types: ReadSyncType[] = [];
    for (const [i, t] of rest.types.entries()) {
      const read = collecting(`config.types.${idOf(t, i)}`, () => syncType.safeParse(t)).value;
      if (!read.success) return firstIssue(read.error, `types.${i}`);
      types.push(read.data);
    }
    const out: ReadConfig = { ...rest, types } as ReadConfig;
    if (out.webhooks === undefined) delete out.webhooks;
    if (out.version === undefined) delete out.version;
    if (rawFilters) {
      out.filters = [];
      for (const [i, f] of rawFilters.entries()) {
        const read = collecting(`config.filters.${idOf(f, i)}`, () => filter.safeParse(f)).value;
        if (read.success) out.filters.push(read.data);
        else warn(`filters.${idOf(f, i)}`, `${firstIssue(read.error)}: the filter is left out`, true);
      }
    }
    return out;
  });
  return result(value, warnings);
}
