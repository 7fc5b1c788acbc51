// Pipes the service's requests to the tracker's API, with weft's upstream client: retries,
// Retry-After, errors the service understands, and recording/replay for tests (WEFT_UPSTREAM).
import { bearer, createUpstream } from '@weft/core';
import type { TrackerDeletion, TrackerProject, TrackerTask } from './tracker-data.js';

/** The tracker's address: the demo tracker (npm run tracker) unless TRACKER_URL says otherwise. */
export function trackerUrl(): string {
  return process.env.TRACKER_URL ?? 'http://127.0.0.1:4010';
}

/** A client of the tracker's API for one request of the service. */
export function tracker(token: string, signal: AbortSignal) {
  const api = createUpstream({ baseUrl: trackerUrl(), auth: bearer(token), signal });
  return {
    me: () => api.json<{ id: string; name: string }>('GET', '/me'),
    projects: () => api.json<TrackerProject[]>('GET', '/projects'),
    tasks: (query: {
      page: number;
      project?: string | undefined;
      dueFrom?: string | undefined;
      dueTo?: string | undefined;
      updatedSince?: string | undefined;
    }) =>
      api.json<{ tasks: TrackerTask[]; next: number | null }>('GET', '/tasks', {
        query: {
          page: query.page,
          project: query.project,
          due_from: query.dueFrom,
          due_to: query.dueTo,
          updated_since: query.updatedSince,
        },
      }),
    deletedTasks: (since: string) =>
      api.json<{ deleted: TrackerDeletion[] }>('GET', '/deleted-tasks', { query: { since } }),
  };
}
