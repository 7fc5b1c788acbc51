// The body of a webhook delivery, validated: one delivery per command, carrying all its effects.
import { z } from 'zod';
import type { AnySchema, EntityOutput, TypeName } from '../schema-types.js';

const Ref = z.object({ 'svc/id': z.string() }).passthrough();
const Values = z.record(z.string(), z.unknown());

const base = { id: z.string(), type: z.string() };

export const EffectSchema = z.union([
  z.object({ effect: z.literal('svc.entity/create'), ...base, values: Values }).passthrough(),
  z
    .object({ effect: z.literal('svc.entity/update'), ...base, values: Values, valuesBefore: Values })
    .passthrough(),
  // valuesBefore: the entity's plain values as they were (the service sends them; older weft did not).
  z
    .object({ effect: z.literal('svc.entity/delete'), ...base, valuesBefore: Values.optional() })
    .passthrough(),
  z
    .object({
      effect: z.enum(['svc.entity/add-collection-items', 'svc.entity/remove-collection-items']),
      ...base,
      field: z.string(),
      items: z.array(Ref),
    })
    .passthrough(),
  // Kinds the service may add later are kept, untyped, rather than refused.
  z.object({ effect: z.string() }).passthrough(),
]);

export const DeliverySchema = z
  .object({
    sequenceId: z.number().int(),
    authorId: z.string(),
    creationDate: z.string(),
    command: z.object({ correlationId: z.string().nullish() }).passthrough().default({}),
    effects: z.array(EffectSchema),
  })
  .passthrough();

type Known<S, T extends string> =
  | { effect: 'svc.entity/create'; id: string; type: T; values: Partial<EntityOutput<S, T>> }
  | {
      effect: 'svc.entity/update';
      id: string;
      type: T;
      values: Partial<EntityOutput<S, T>>;
      valuesBefore: Partial<EntityOutput<S, T>>;
    }
  | { effect: 'svc.entity/delete'; id: string; type: T; valuesBefore?: Partial<EntityOutput<S, T>> }
  | {
      effect: 'svc.entity/add-collection-items' | 'svc.entity/remove-collection-items';
      id: string;
      type: T;
      field: string;
      items: { 'svc/id': string }[];
    };

/** One change, typed by the entity type it concerns (narrow on `type`, then on `effect`). */
export type WebhookEffect<S = AnySchema> = { [T in TypeName<S>]: Known<S, T> }[TypeName<S>];

export interface WebhookDelivery<S = AnySchema> {
  sequenceId: number;
  authorId: string;
  creationDate: string;
  command: { correlationId?: string | null };
  effects: WebhookEffect<S>[];
}

/** Validates a delivery body; throws a zod error naming what is wrong. */
export function parseDelivery<S = AnySchema>(body: unknown): WebhookDelivery<S> {
  return DeliverySchema.parse(body) as unknown as WebhookDelivery<S>;
}
