// Deliveries are typed by the schema: narrowing on the type and the effect gives typed values.
import { describe, expectTypeOf, test } from 'vitest';
import type { Tracker } from '../../test/fixtures/tracker-types.js';
import type { WebhookDelivery } from './delivery.js';

describe('typed webhook effects', () => {
  test('values of an update are the fields of the entity type', () => {
    const delivery = {} as WebhookDelivery<Tracker>;
    for (const effect of delivery.effects) {
      if (effect.type === 'Tracker/Task' && effect.effect === 'svc.entity/update') {
        expectTypeOf(effect.values['Tracker/Estimate']).toEqualTypeOf<number | null | undefined>();
        // @ts-expect-error: not a field of Tracker/Task
        void effect.valuesBefore['Tracker/Budget'];
      }
      if (effect.type === 'Tracker/Task' && effect.effect === 'svc.entity/delete') {
        expectTypeOf(effect.valuesBefore?.['Tracker/Estimate']).toEqualTypeOf<number | null | undefined>();
      }
      if (effect.effect === 'svc.entity/add-collection-items') {
        expectTypeOf(effect.items).toEqualTypeOf<{ 'svc/id': string }[]>();
      }
    }
  });
});
