import { forbidden } from '../errors.js';
import type { FieldDef, TypeDef } from '../schema/catalog.js';

/** Who is acting: every command and request runs as one user. */
export interface Principal {
  id: string;
  admin: boolean;
}

/**
 * The service's name for the user asking: a filter parameter it fills in (`$my-id`) and a
 * relation's default (`{svc/id: "$my-id"}`, as svc/created-by's).
 */
export const MY_ID = '$my-id';

/** Whether a to-one field's default names the user asking (`$my-id` or `{svc/id: "$my-id"}`). */
export const meansAsker = (value: unknown): boolean =>
  value === MY_ID ||
  (typeof value === 'object' && value !== null && (value as Record<string, unknown>)['svc/id'] === MY_ID);

/**
 * Permissions apply to secured types only: on a secured type, a secured field is closed to users
 * without the admin role, and so is its relation partner (FieldDef.restricted); everything else is
 * open to everyone.
 */
export function canAccessField(user: Principal, _type: TypeDef, field: FieldDef): boolean {
  return user.admin || !field.restricted;
}

export function assertFieldAccess(user: Principal, type: TypeDef, field: FieldDef): void {
  if (!canAccessField(user, type, field)) {
    throw forbidden(`No permission for field ${field.name} of ${type.name}`);
  }
}
