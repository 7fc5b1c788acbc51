// A core app for the engine's tests: notes (23, pages of 5, delta with removals, a switch to
// answer tryLater) and tags. Its upstream lives here, like a third-party system would.
import {
  auth,
  defineApp,
  field,
  InvalidAccountError,
  input,
  remove,
  resume,
  TryLaterError,
} from '@weft/core';

export const upstream = {
  notes: Array.from({ length: 23 }, (_, i) => ({ id: `n${i}`, title: `Note ${i}` })),
  removed: ['gone-1', 'gone-2'],
  busyFor: 0,
};

export const app = defineApp({
  id: 'notes',
  name: 'Notes',
  version: '1.0.0',
  description: 'test app',
  website: 'http://127.0.0.1/',
  authentication: [
    auth.fields({
      id: 'fields',
      name: 'Token',
      fields: { token: input.password({ name: 'Token' }) },
      validate: (account) => {
        if (account.token !== 'secret-token-123') throw new InvalidAccountError('The token is wrong');
        return { name: 'Notes account' };
      },
    }),
  ],
  pageSize: 5,
  sync: {
    types: {
      note: {
        name: 'Notes',
        delta: true,
        fields: { id: field.id(), name: field.title({ name: 'Title' }) },
        async *data({ cursor, mode }) {
          if (upstream.busyFor > 0) {
            upstream.busyFor--;
            throw new TryLaterError('rate limited', { status: 429 });
          }
          const c = cursor as { offset?: number } | undefined;
          const start = typeof c?.offset === 'number' ? c.offset : 0;
          for (let i = start; i < upstream.notes.length; i++) {
            const n = upstream.notes[i] as { id: string; title: string };
            yield { id: n.id, name: n.title };
            yield resume({ offset: i + 1 });
          }
          if (mode === 'delta') for (const id of upstream.removed) yield remove(id);
        },
      },
      tag: {
        name: 'Tags',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data() {
          for (let i = 0; i < 7; i++) yield { id: `t${i}`, name: `Tag ${i}` };
        },
      },
    },
  },
});
