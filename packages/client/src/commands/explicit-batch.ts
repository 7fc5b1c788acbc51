// `client.batch(b => ...)`: commands collected by the callback and sent as one
// `svc.command/batch`, which the service runs atomically. The callback gets slots, not promises
// (nothing has been sent while it runs); whatever it returns comes back with each slot replaced
// by its command's result.
import { randomUUID } from 'node:crypto';
import type {
  AnySchema,
  EntityInput,
  EntityOutput,
  FieldName,
  ManyRef,
  Ref,
  TypeName,
} from '../schema-types.js';
import type { Command } from './command.js';
import { collectionArgs } from '../resources/entities.js';

const SLOT = Symbol('weft.batch-slot');

/** Stands for the result of one command of the batch. */
export interface BatchSlot<T> {
  readonly [SLOT]: number;
  /** Phantom: the result type. */
  readonly __result?: T;
}

export type Resolved<R> =
  R extends BatchSlot<infer T>
    ? T
    : R extends readonly unknown[]
      ? { [K in keyof R]: Resolved<R[K]> }
      : R extends object
        ? { [K in keyof R]: Resolved<R[K]> }
        : R;

export class BatchBuilder<S = AnySchema> {
  readonly commands: Command[] = [];

  /** A new uuid, to give an entity an id and refer to it later in the same batch. */
  id(): string {
    return randomUUID();
  }

  /** Any command. */
  command<T = unknown>(
    command: string,
    args: Record<string, unknown> = {},
    correlationId?: string,
  ): BatchSlot<T> {
    this.commands.push({ command, args, ...(correlationId ? { correlationId } : {}) });
    return { [SLOT]: this.commands.length - 1 } as BatchSlot<T>;
  }

  readonly entities = {
    create: <T extends TypeName<S>>(type: T, entity: EntityInput<S, T>) =>
      this.command<EntityOutput<S, T>>('svc.entity/create', { type, entity }),
    update: <T extends TypeName<S>>(type: T, entity: EntityInput<S, T> & Ref) =>
      this.command<EntityOutput<S, T>>('svc.entity/update', { type, entity }),
    delete: <T extends TypeName<S>>(type: T, id: string) =>
      this.command<'ok'>('svc.entity/delete', { type, entity: { 'svc/id': id } }),
    addItems: <T extends TypeName<S>>(
      type: T,
      id: string,
      field: ManyRef<S, T> & FieldName<S, T>,
      items: string[],
    ) => this.command<'ok'>('svc.entity/add-collection-items', collectionArgs(type, id, field, items)),
    removeItems: <T extends TypeName<S>>(
      type: T,
      id: string,
      field: ManyRef<S, T> & FieldName<S, T>,
      items: string[],
    ) => this.command<'ok'>('svc.entity/remove-collection-items', collectionArgs(type, id, field, items)),
  };
}

export function resolveSlots<R>(value: R, results: unknown[]): Resolved<R> {
  return walk(value, results) as Resolved<R>;
}

function walk(value: unknown, results: unknown[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (SLOT in value) return results[(value as BatchSlot<unknown>)[SLOT]];
  if (Array.isArray(value)) return value.map((v) => walk(v, results));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, results)]));
}

/** The results of an inner batch may be plain values or `{success, result}` elements. */
export function unwrapInner(results: unknown): unknown[] {
  if (!Array.isArray(results)) return [];
  return results.map((r) =>
    r &&
    typeof r === 'object' &&
    'success' in r &&
    (r as { success: unknown }).success === true &&
    'result' in r
      ? (r as { result: unknown }).result
      : r,
  );
}
