import { z } from 'zod';
import { firstIssue, isObject, text } from './coerce.js';
import { collecting, type ReadResult, result, warn } from './warning.js';

// The smaller answers, as the service reads them: validate, datalist, webhooks, OAuth, actions.

type Json = Record<string, unknown>;

function read<T>(where: string, raw: unknown, schema: z.ZodType<T>): ReadResult<T> {
  const { value, warnings } = collecting(where, (): T | string => {
    const parsed = schema.safeParse(raw);
    return parsed.success ? parsed.data : firstIssue(parsed.error);
  });
  return result(value, warnings);
}

const validate = z
  .looseObject({
    name: text('name').optional(),
  })
  .transform((v) => {
    if (v.name === undefined) warn('name', 'missing: the account has no title');
    return { ...v, name: v.name ?? '' };
  });

/** `POST /validate`: `{name}` plus account keys to store; no `name` means an account without a title. */
export const readValidateAnswer = (raw: unknown): ReadResult<Json & { name: string }> =>
  read('validate', raw, validate);

const datalistItem = z.looseObject({
  value: z.union([z.string(), z.number(), z.boolean()]),
  title: z.unknown().optional(),
});

const datalist = z.looseObject({ items: z.array(z.unknown()) }).transform((d) => {
  const items: { title: string; value: string; [key: string]: unknown }[] = [];
  for (const [i, raw] of d.items.entries()) {
    const item = datalistItem.safeParse(raw);
    if (!item.success) {
      warn(`items.${i}`, `${firstIssue(item.error)}: the item is left out`, true);
      continue;
    }
    const { value, title } = item.data;
    if (typeof value !== 'string')
      warn(`items.${i}.value`, `${String(value)} read as the string ${JSON.stringify(String(value))}`);
    if (typeof title !== 'string')
      warn(`items.${i}.title`, 'missing or not a string: the value is the title');
    items.push({
      ...item.data,
      value: String(value),
      title: typeof title === 'string' ? title : String(value),
    });
  }
  return { ...d, items };
});

/** `POST /api/v1/synchronizer/datalist`: `{items: [{title, value}]}`; an item without a value is left out. */
export const readDatalistAnswer = (raw: unknown) => read('datalist', raw, datalist);

const webhook = z.looseObject({ id: z.union([z.string().min(1), z.number()]) });

/** `POST /api/v1/synchronizer/webhooks` (install) and `webhooks/verify`: `{id}`. */
export const readWebhookAnswer = (
  raw: unknown,
  where = 'webhooks',
): ReadResult<Json & { id: string | number }> => read(where, raw, webhook);

const transform = z.looseObject({ data: z.record(z.string(), z.unknown()) }).transform((t) => {
  const data: Record<string, Json[]> = {};
  for (const [type, rows] of Object.entries(t.data)) {
    if (!Array.isArray(rows)) {
      warn(`data.${type}`, 'not an array of rows: left out', true);
      continue;
    }
    const good = rows.filter(isObject);
    if (good.length < rows.length)
      warn(`data.${type}`, `${rows.length - good.length} row(s) that are not objects: left out`, true);
    data[type] = good;
  }
  return { ...t, data };
});

/** `POST /api/v1/synchronizer/webhooks/transform`: `{data: {<type>: rows}}`. */
export const readTransformAnswer = (raw: unknown) => read('webhooks/transform', raw, transform);

/** `POST /oauth2/v1/authorize`: `{redirect_uri}`. */
export const readOauth2AuthorizeAnswer = (raw: unknown) =>
  read('oauth2/authorize', raw, z.looseObject({ redirect_uri: z.string().min(1) }));

/** `POST /oauth1/v1/authorize`: `{redirect_uri, token, secret}`. */
export const readOauth1AuthorizeAnswer = (raw: unknown) =>
  read(
    'oauth/authorize',
    raw,
    z.looseObject({ redirect_uri: z.string().min(1), token: text('token'), secret: text('secret') }),
  );

/** Either OAuth `access_token`: the account keys to store, an object. */
export const readOauthAccountAnswer = (raw: unknown, where = 'oauth2/access_token') =>
  read(where, raw, z.record(z.string(), z.unknown()));

/**
 * `POST /api/v1/automations/action/execute` with a 2xx: the action ran. The service reads no
 * result from the body; anything but an object (or nothing) is noted.
 */
export function readActionAnswer(raw: unknown): ReadResult<Json> {
  return read(
    'execute',
    raw,
    z.unknown().transform((v): Json => {
      if (v === undefined || v === null) return {};
      if (isObject(v)) return v;
      warn('', 'not a JSON object: read as `{}` (the action ran)');
      return {};
    }),
  );
}
