// The `save-entity` action: creates or updates an entity of the workspace the automation runs in,
// through @weft/client (rate budget, batching and the service's own error messages included).
import { ActionError, TryLaterError } from '@weft/core';
import { createWorkspaceClient, type Namespace, WorkspaceError } from '@weft/client';

/** Where the deployment writes: the workspace's address and an API token of it. */
export interface WorkspaceTarget {
  url: string;
  token: string;
  /** what the workspace calls the service's namespace: `fibery` for the real service (default svc) */
  namespace?: Namespace;
}

export interface SaveEntityArgs {
  type: string;
  id?: string | undefined;
  fields: string;
}

/** Most field lines one action may set. */
export const MAX_FIELDS = 100;

/**
 * `Name: value` lines → field values. A value is text, unless it starts with `=`: then the rest is
 * JSON, for numbers, booleans, null and references (`Tracker/Estimate: =3`,
 * `Tracker/Project: ={"svc/id":"…"}`), since a template's text cannot say which it means.
 */
export function parseFieldLines(text: string): Record<string, unknown> {
  const fields: Record<string, unknown> = Object.create(null);
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  if (lines.length > MAX_FIELDS) throw new ActionError(`At most ${MAX_FIELDS} field lines`);
  for (const [index, line] of lines.entries()) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!/^[^\s:]+\/[^\s:]+$/.test(name)) {
      throw new ActionError(`Field line ${index + 1} is not "<app>/<field>: value"`);
    }
    const raw = line.slice(colon + 1).trim();
    if (raw.startsWith('=')) {
      try {
        fields[name] = JSON.parse(raw.slice(1));
      } catch {
        throw new ActionError(`Field line ${index + 1}: the value after "=" is not JSON`);
      }
    } else {
      fields[name] = raw;
    }
  }
  if (Object.keys(fields).length === 0) throw new ActionError('"Fields" names no field');
  return { ...fields };
}

/** Creates the entity (or updates it when `id` is given) and resolves to its id. */
export async function saveEntity(target: WorkspaceTarget, args: SaveEntityArgs): Promise<string> {
  const type = args.type.trim();
  if (!/^[^\s/]+\/[^\s/]+$/.test(type)) throw new ActionError('"Type" is not "<app>/<name>"');
  const fields = parseFieldLines(args.fields);
  const id = args.id?.trim();
  // Every client for the same token shares one rate budget in this process.
  const client = createWorkspaceClient({
    url: target.url,
    token: target.token,
    ...(target.namespace ? { namespace: target.namespace } : {}),
  });
  try {
    const saved = id
      ? await client.entities.update(type, { ...fields, 'svc/id': id })
      : await client.entities.create(type, fields);
    return String(saved['svc/id']);
  } catch (error) {
    if (error instanceof WorkspaceError) {
      // The service's message says what to fix in the rule; a busy or unreachable workspace is
      // worth another try. The token is never part of either.
      if (error.retryable) throw new TryLaterError(`The workspace did not take the change: ${error.message}`);
      throw new ActionError(error.message);
    }
    throw error;
  }
}
