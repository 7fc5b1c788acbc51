// The demo tracker's data: three projects and their tasks, with a log of deleted tasks. Dates are
// fixed so that recordings (cassettes/) stay valid: the tests run the kit "now" = DEMO_NOW.

/** The instant the demo data was "taken"; tests pass it to the conformance kit as `now`. */
export const DEMO_NOW = '2026-11-20T12:00:00.000Z';

export interface TrackerProject {
  id: string;
  name: string;
}

export interface TrackerTask {
  id: string;
  title: string;
  done: boolean;
  /** A day, `YYYY-MM-DD`, or null. */
  due: string | null;
  projectId: string;
  updatedAt: string;
}

export interface TrackerDeletion {
  id: string;
  deletedAt: string;
}

export const PROJECTS: TrackerProject[] = [
  { id: 'p-1', name: 'Website relaunch' },
  { id: 'p-2', name: 'Mobile app' },
  { id: 'p-3', name: 'Office move' },
];

const TITLES = [
  'Write the brief',
  'Collect quotes',
  'Review the design',
  'Plan the launch',
  'Fix the login bug',
  'Update the docs',
  'Book the movers',
  'Order new desks',
];

const HOUR = 3_600_000;

/** 24 tasks; the first four changed in the day before DEMO_NOW, the rest earlier. */
export const TASKS: TrackerTask[] = Array.from({ length: 24 }, (_, i) => {
  const n = i + 1;
  const hoursAgo = n <= 4 ? n * 3 : n * 40;
  const dueDay =
    n % 5 === 0 ? null : `2026-${n % 2 === 0 ? '11' : '12'}-${String((n % 28) + 1).padStart(2, '0')}`;
  return {
    id: `t-${String(n).padStart(2, '0')}`,
    title: `${TITLES[i % TITLES.length]} #${n}`,
    done: n % 3 === 0,
    due: dueDay,
    projectId: PROJECTS[i % PROJECTS.length]!.id,
    updatedAt: new Date(Date.parse(DEMO_NOW) - hoursAgo * HOUR).toISOString(),
  };
});

/** Tasks deleted upstream: two in the day before DEMO_NOW, one long before. */
export const DELETIONS: TrackerDeletion[] = [
  { id: 't-31', deletedAt: '2026-11-20T06:00:00.000Z' },
  { id: 't-32', deletedAt: '2026-11-19T20:00:00.000Z' },
  { id: 't-30', deletedAt: '2026-10-01T09:00:00.000Z' },
];

/** The token the demo tracker accepts. */
export const DEMO_TOKEN = 'demo-token';
