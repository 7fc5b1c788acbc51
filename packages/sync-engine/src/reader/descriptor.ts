import type { FieldType } from '@weft/core/protocol';
import { z } from 'zod';
import { firstIssue, flag, isObject, orLeftOut, text, tolerateMissing } from './coerce.js';
import { formFieldKeys, formFieldType, label } from './form-field.js';
import { collecting, type ReadResult, result, warn } from './warning.js';

// `GET /` as the service reads it. It insists on `name`, `version`, `description`,
// `authentication` and `sources`; it takes a descriptor without `website` or `responsibleFor`, an
// account field without `description` or with `title` for `name`, string booleans, unknown keys.

export interface ReadAuthField {
  id: string;
  /** the label (from `name`, else `title`, else the id) */
  name: string;
  title?: string;
  type: FieldType;
  description: string;
  optional?: boolean;
  value?: string;
  editorMode?: 'json' | 'sql';
  datalist_requires?: string[];
  [key: string]: unknown;
}

export interface ReadAuthentication {
  id: string;
  name: string;
  description?: string;
  fields?: ReadAuthField[];
  responsibleFor?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ReadAction {
  action: string;
  name: string;
  description?: string;
  args: { id: string; name: string; type: string; description?: string; [key: string]: unknown }[];
  [key: string]: unknown;
}

export interface ReadDescriptor {
  id?: string;
  name: string;
  version: string;
  description: string;
  website?: string;
  authentication: ReadAuthentication[];
  sources: unknown[];
  responsibleFor?: { dataSynchronization?: boolean; automations?: boolean; [key: string]: unknown };
  actions?: ReadAction[];
  [key: string]: unknown;
}

const authField = z.looseObject({ ...formFieldKeys, value: text('value').optional() }).transform((f) => {
  const name = label(f, 'name');
  if (f.description === undefined) warn('description', 'missing: read as empty');
  return { ...f, name, type: formFieldType(f.type), description: f.description ?? '' } as ReadAuthField;
});

const responsibleFor = z.looseObject({
  dataSynchronization: flag('responsibleFor.dataSynchronization').optional(),
  automations: flag('responsibleFor.automations').optional(),
});

const argument = z.looseObject({
  id: text('id').pipe(z.string().min(1)),
  name: z.string().optional(),
  type: z.string().optional(),
  description: z.string().optional(),
});

const action = z.looseObject({
  action: text('action').pipe(z.string().min(1)),
  name: z.string().optional(),
  description: z.string().optional(),
  args: z.array(z.unknown()).optional(),
});

const top = z.looseObject({
  id: z.string().optional(),
  name: z.string().min(1),
  version: text('version').pipe(z.string().min(1)),
  description: z.string(),
  website: orLeftOut('website', z.string()),
  authentication: z.array(z.unknown()).min(1),
  sources: z.array(z.unknown()),
  responsibleFor: orLeftOut('responsibleFor', responsibleFor, 'the roles are guessed'),
  actions: z.array(z.unknown()).nullish(),
});

function readAuthentication(raw: unknown, i: number): ReadAuthentication | string {
  if (!isObject(raw)) return `authentication.${i}: not an object`;
  const id = typeof raw.id === 'string' && raw.id ? raw.id : undefined;
  if (!id) return `authentication.${i}.id: expected a non-empty string`;
  const name = typeof raw.name === 'string' && raw.name ? raw.name : undefined;
  if (!name) warn(`authentication.${id}.name`, 'missing: the id is the name');
  const out: ReadAuthentication = { ...raw, id, name: name ?? id };
  if (raw.fields === null) delete out.fields;
  else if (raw.fields !== undefined) {
    if (!Array.isArray(raw.fields)) return `authentication.${id}.fields: expected an array`;
    const fields: ReadAuthField[] = [];
    for (const [j, f] of raw.fields.entries()) {
      const where = `authentication.${id}.${isObject(f) && typeof f.id === 'string' ? f.id : j}`;
      const read = collecting(`descriptor.${where}`, () => authField.safeParse(f));
      // A field without an id has no key in the account: left out, the form works without it.
      if (read.value.success) fields.push(read.value.data);
      else warn(where, `${firstIssue(read.value.error)}: the field is left out`, true);
    }
    out.fields = fields;
  }
  return out;
}

function readAction(raw: unknown, i: number): ReadAction | undefined {
  const parsed = action.safeParse(raw);
  if (!parsed.success) {
    warn(`actions.${i}`, `${firstIssue(parsed.error)}: the action is left out`, true);
    return undefined;
  }
  const a = parsed.data;
  const args: ReadAction['args'] = [];
  for (const [j, rawArg] of (a.args ?? []).entries()) {
    const arg = argument.safeParse(rawArg);
    if (!arg.success) {
      warn(`actions.${a.action}.args.${j}`, `${firstIssue(arg.error)}: the argument is left out`, true);
      continue;
    }
    const { id, name, type } = arg.data;
    if (!name) warn(`actions.${a.action}.args.${id}.name`, 'missing: the id is the name');
    if (type !== undefined && type !== 'text' && type !== 'textarea')
      warn(
        `actions.${a.action}.args.${id}.type`,
        `unknown argument type ${JSON.stringify(type)}: read as text`,
      );
    args.push({ ...arg.data, name: name || id, type: type === 'textarea' ? 'textarea' : 'text' });
  }
  if (!a.name) warn(`actions.${a.action}.name`, 'missing: the id is the name');
  if (a.args === undefined) warn(`actions.${a.action}.args`, 'missing: read as no arguments');
  return { ...a, name: a.name || a.action, args };
}

/** Reads `GET /`'s answer as the service does. */
export function readDescriptor(raw: unknown): ReadResult<ReadDescriptor> {
  const { value, warnings } = collecting('descriptor', (): ReadDescriptor | string => {
    if (!isObject(raw)) return 'body: not a JSON object';
    const parsed = top.safeParse(raw);
    if (!parsed.success) return firstIssue(parsed.error);
    const d = parsed.data;
    tolerateMissing(raw, ['website'], 'the service does not require it');
    tolerateMissing(
      raw,
      ['responsibleFor'],
      'the roles are guessed: data synchronization, and automations when `actions` is not empty',
    );
    if (d.sources.length > 0) warn('sources', 'not empty: ignored, as the service ignores it');
    const authentication: ReadAuthentication[] = [];
    for (const [i, a] of d.authentication.entries()) {
      const read = readAuthentication(a, i);
      if (typeof read === 'string') return read;
      authentication.push(read);
    }
    const out: ReadDescriptor = { ...d, authentication } as ReadDescriptor;
    for (const key of ['website', 'responsibleFor', 'actions'] as const)
      if (out[key] == null) delete out[key];
    if (d.actions) out.actions = d.actions.map(readAction).filter((a): a is ReadAction => a !== undefined);
    return out;
  });
  return result(value, warnings);
}
