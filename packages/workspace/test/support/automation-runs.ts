import { expect } from 'vitest';
import { waitFor } from './bookshelf-seed.js';
import type { Harness } from './databases.js';

// Automations over the workspace's HTTP API, as tests make and run them.

export interface RunRecord {
  state: string;
  message: string | null;
  answer: unknown;
  attempts: number;
}

export function automationRuns(h: Harness) {
  /** Adds an automation (201 expected) and answers it. */
  const addAutomation = async (body: unknown) => {
    const res = await h.request('POST', '/api/automations', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string };
  };
  const runsOf = async (id: string) =>
    (await h.request('GET', `/api/automations/runs?automation=${id}`)).body as RunRecord[];
  /** The automation's runs once `count` of them are done or failed. */
  const finished = (id: string, count = 1) =>
    waitFor(`${count} finished run(s)`, async () => {
      const runs = await runsOf(id);
      const done = runs.filter((r) => r.state === 'done' || r.state === 'failed');
      return done.length >= count ? done : undefined;
    });
  return { addAutomation, runsOf, finished };
}
