import { forbidden } from '../errors.js';
import type { FieldDef, TypeDef } from '../schema/catalog.js';

/** Who is acting: every command and request runs as one user. */
export interface Principal {
  id: string;
  admin: boolean;
}

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
