// Apps written to drift, for the tests of the drift property in the engine, the kit and the host:
// one correct app and five that each lose something in their delta sync, over a small in-memory
// task tracker the tests change between syncs (like a third-party system would change).
import { type AppDefinition, auth, defineApp, field, remove, resume } from '@weft/core';

const DAY = 24 * 60 * 60 * 1000;

interface Task {
  id: string;
  title: string;
  done: boolean;
  project: string;
  modifiedAt: number;
}
interface Project {
  id: string;
  name: string;
  modifiedAt: number;
}

/**
 * A task tracker. Its clock runs 30 s behind the service's (as clocks of two systems do), and
 * the changes of one `batch` share one modification time (as an import or bulk edit does).
 */
export class Tracker {
  readonly tasks = new Map<string, Task>();
  readonly projects = new Map<string, Project>();
  readonly deleted: { id: string; deletedAt: number }[] = [];
  /** listings served: a value that changes on every view */
  views = 0;
  private stamp: number | undefined;

  /** Twelve tasks in two projects, last changed three days ago (well before any delta's margin). */
  constructor() {
    const old = Date.now() - 3 * DAY;
    this.projects.set('p1', { id: 'p1', name: 'Garden', modifiedAt: old });
    this.projects.set('p2', { id: 'p2', name: 'House', modifiedAt: old });
    for (let i = 1; i <= 12; i++) {
      const id = `t${String(i).padStart(2, '0')}`;
      this.tasks.set(id, {
        id,
        title: `Task ${i}`,
        done: false,
        project: i <= 4 ? 'p1' : 'p2',
        modifiedAt: old + i * 1000,
      });
    }
  }

  now(): number {
    return this.stamp ?? Date.now() - 30_000;
  }

  batch(fn: () => void): void {
    this.stamp = this.now();
    try {
      fn();
    } finally {
      this.stamp = undefined;
    }
  }

  add(id: string, title: string, project = 'p2'): void {
    this.tasks.set(id, { id, title, done: false, project, modifiedAt: this.now() });
  }

  update(id: string, change: Partial<Pick<Task, 'title' | 'done'>>): void {
    const task = this.tasks.get(id);
    if (task) Object.assign(task, change, { modifiedAt: this.now() });
  }

  remove(id: string): void {
    if (this.tasks.delete(id)) this.deleted.push({ id, deletedAt: this.now() });
  }

  /** Renames a project: its tasks' own modification times do not change. */
  renameProject(id: string, name: string): void {
    const project = this.projects.get(id);
    if (project) Object.assign(project, { name, modifiedAt: this.now() });
  }
}

/** The changes every drift test makes between the first full sync and the delta sync. */
export function changeTracker(tracker: Tracker): void {
  tracker.batch(() => {
    tracker.remove('t02');
    tracker.update('t05', { title: 'Task 5, renamed' });
    tracker.update('t06', { done: true });
    tracker.update('t07', { title: 'Task 7, renamed', done: true });
    tracker.add('t13', 'Task 13');
    tracker.renameProject('p1', 'Garden and orchard');
  });
}

export type DriftBug = 'no-remove' | 'page-boundary' | 'margin' | 'unstable-ids' | 'quiet-value';
export const DRIFT_BUGS: readonly DriftBug[] = [
  'no-remove',
  'page-boundary',
  'margin',
  'unstable-ids',
  'quiet-value',
];

/**
 * The tracker's tasks app, with one bug or none:
 * - `no-remove`: the delta never sends REMOVE for deleted tasks;
 * - `page-boundary`: the delta pages by modification time alone, so tasks sharing the time of
 *   the last row of a page are skipped;
 * - `margin`: no safety margin, so changes the tracker stamped with its late clock are missed;
 * - `unstable-ids`: ids carry the tracker's view counter, so they change on every sync;
 * - `quiet-value`: a task's project name changes when the project is renamed, which does not
 *   change the task's modification time, and the delta looks only at that time.
 */
export function trackerApp(tracker: Tracker, bug?: DriftBug): AppDefinition<any, any, any, any> {
  // When a task last changed as its synced row sees it: its project's rename changes its row too.
  const changedAt = (t: Task) =>
    bug === 'quiet-value'
      ? t.modifiedAt
      : Math.max(t.modifiedAt, tracker.projects.get(t.project)?.modifiedAt ?? 0);
  // A full sync pages by id; a delta by modification time, then id (the bug: by time alone).
  const after = (t: Task, cursor: { at?: number; id?: string } | undefined, delta: boolean) => {
    if (!cursor) return true;
    if (!delta) return t.id > (cursor.id ?? '');
    const at = changedAt(t);
    const from = cursor.at ?? 0;
    if (bug === 'page-boundary') return at > from;
    return at > from || (at === from && t.id > (cursor.id ?? ''));
  };
  return defineApp({
    id: `tracker-${bug ?? 'correct'}`,
    name: 'Tracker',
    version: '1.0.0',
    description: 'tasks of a tracker, for drift tests',
    website: 'http://127.0.0.1/',
    authentication: [auth.none()],
    sync: {
      types: {
        task: {
          name: 'Tasks',
          delta: bug === 'margin' ? { safetyMarginHours: 0 } : true,
          pageSize: 2,
          fields: {
            id: field.id(),
            name: field.title({ name: 'Title' }),
            done: field.bool({ name: 'Done' }),
            project: field.text({ name: 'Project' }),
          },
          async *data({ since, cursor }) {
            if (cursor === undefined) tracker.views++;
            const views = tracker.views;
            const from = cursor as { at?: number; id?: string } | undefined;
            const delta = since !== null;
            const rows = [...tracker.tasks.values()]
              .filter((t) => !delta || changedAt(t) > since.getTime())
              .sort((a, b) => (delta ? changedAt(a) - changedAt(b) : 0) || a.id.localeCompare(b.id))
              .filter((t) => after(t, from, delta));
            for (const t of rows) {
              yield {
                id: bug === 'unstable-ids' ? `${t.id}.${views}` : t.id,
                name: t.title,
                done: t.done,
                project: tracker.projects.get(t.project)?.name ?? '',
              };
              yield resume(delta ? { at: changedAt(t), id: t.id } : { id: t.id });
            }
            if (since !== null && bug !== 'no-remove')
              for (const d of tracker.deleted) if (d.deletedAt > since.getTime()) yield remove(d.id);
          },
        },
      },
    },
  });
}
