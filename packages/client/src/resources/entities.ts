// Entity commands. Each call goes through the coalescing channel, so many calls issued together
// travel in few requests while each caller still gets its own result or error.
import type { ClientContext } from './context.js';
import type {
  AnySchema,
  EntityInput,
  EntityOutput,
  FieldName,
  ManyRef,
  Ref,
  TypeName,
} from '../schema-types.js';

export interface CommandOptions {
  /** Copied by the service into webhook deliveries caused by this command. */
  correlationId?: string;
}

export function entitiesApi<S = AnySchema>(ctx: ClientContext) {
  const run = (command: string, args: Record<string, unknown>, options?: CommandOptions) =>
    ctx.channel.run({
      command,
      args,
      ...(options?.correlationId ? { correlationId: options.correlationId } : {}),
    });
  return {
    /** `svc.entity/create`: resolves to the created entity (primitive, single-select and entity fields). */
    create<T extends TypeName<S>>(type: T, entity: EntityInput<S, T>, options?: CommandOptions) {
      return run('svc.entity/create', { type, entity }, options) as Promise<EntityOutput<S, T>>;
    },
    /** `svc.entity/update`: `entity` holds `svc/id` and the fields to change. */
    update<T extends TypeName<S>>(type: T, entity: EntityInput<S, T> & Ref, options?: CommandOptions) {
      return run('svc.entity/update', { type, entity }, options) as Promise<EntityOutput<S, T>>;
    },
    delete<T extends TypeName<S>>(type: T, id: string, options?: CommandOptions): Promise<void> {
      return run('svc.entity/delete', { type, entity: { 'svc/id': id } }, options).then(() => undefined);
    },
    /** `svc.entity/add-collection-items`: links `items` (ids) into the collection `field` of entity `id`. */
    addItems<T extends TypeName<S>>(
      type: T,
      id: string,
      field: ManyRef<S, T> & FieldName<S, T>,
      items: string[],
      options?: CommandOptions,
    ): Promise<void> {
      return run('svc.entity/add-collection-items', collectionArgs(type, id, field, items), options).then(
        () => undefined,
      );
    },
    removeItems<T extends TypeName<S>>(
      type: T,
      id: string,
      field: ManyRef<S, T> & FieldName<S, T>,
      items: string[],
      options?: CommandOptions,
    ): Promise<void> {
      return run('svc.entity/remove-collection-items', collectionArgs(type, id, field, items), options).then(
        () => undefined,
      );
    },
  };
}

export function collectionArgs(
  type: string,
  id: string,
  field: string,
  items: string[],
): Record<string, unknown> {
  return { type, field, entity: { 'svc/id': id }, items: items.map((item) => ({ 'svc/id': item })) };
}
