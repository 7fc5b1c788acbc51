// Tasks: syncs projects and their tasks from a task tracker into the workspace service.
import { type JsonValue, auth, defineApp, field, input, remove, resume } from '@weft/core';
import { tracker } from './tracker.js';

export const app = defineApp({
  id: 'tasks',
  name: 'Tasks',
  version: '1.0.0',
  description: 'Projects and tasks from the tracker, kept up to date with delta syncs',
  website: 'https://tracker.example.com',

  // How users connect their account. `token` is a password: redacted from logs and errors.
  authentication: [
    auth.fields({
      id: 'token',
      name: 'API token',
      fields: {
        token: input.password({ name: 'Token', description: 'The demo tracker accepts "demo-token"' }),
      },
      async validate(account, { signal }) {
        const me = await tracker(account.token, signal).me(); // a 401 becomes InvalidAccountError
        return { name: me.name };
      },
    }),
  ],

  sync: {
    // What users can narrow the sync to.
    filters: {
      project: input.list({ name: 'Project', datalist: true, optional: true }),
      due: input.date({ name: 'Due', description: 'e.g. "this month" or "from 01-12-2026"', optional: true }), // {_min, _max}
    },
    datalists: {
      async project({ account, signal }) {
        const projects = await tracker(account.token, signal).projects();
        return projects.map((p) => ({ title: p.name, value: p.id }));
      },
    },

    types: {
      project: {
        name: 'Projects',
        fields: { id: field.id(), name: field.title({ name: 'Name' }) },
        async *data({ account, filter, signal }) {
          const projects = await tracker(account.token, signal).projects();
          yield projects.filter((p) => !filter.project || p.id === filter.project); // an array is a batch
        },
      },
      task: {
        name: 'Tasks',
        delta: true, // incremental syncs: `since`, changed rows, remove(id)
        fields: {
          id: field.id(),
          name: field.title({ name: 'Title' }),
          done: field.bool(),
          due: field.day(),
          updatedAt: field.date({ name: 'Updated At' }),
          // Declared once, on one side only.
          project: field.relation({ to: 'project', cardinality: 'many-to-one', targetName: 'Tasks' }),
        },
        async *data({ account, filter, cursor, mode, since, signal }) {
          const api = tracker(account.token, signal);
          const updatedSince = mode === 'delta' && since ? since.toISOString() : undefined;
          // The cursor is the last resume() value: the tracker page to continue from.
          for (let page: number | null = readPage(cursor); page !== null; ) {
            const answer = await api.tasks({
              page,
              project: filter.project,
              dueFrom: filter.due?._min,
              dueTo: filter.due?._max,
              updatedSince,
            });
            yield answer.tasks.map((t) => ({
              id: t.id,
              name: t.title,
              done: t.done,
              due: t.due,
              updatedAt: t.updatedAt,
              project: t.projectId,
            }));
            page = answer.next;
            if (page !== null) yield resume(page); // the next request may start here, on any replica
          }
          if (updatedSince) {
            // A delta sync also reports the tasks deleted since the last one.
            for (const deleted of (await api.deletedTasks(updatedSince)).deleted) yield remove(deleted.id);
          }
        },
      },
    },
  },
});

function readPage(cursor: JsonValue | undefined): number {
  return typeof cursor === 'number' && Number.isInteger(cursor) && cursor > 0 ? cursor : 1;
}
