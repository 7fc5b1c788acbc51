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
  /** Adds a button that runs a script on entities of `type` (options: the action's others, e.g. timeoutMs). */
  const addScriptButton = (name: string, type: string, code: string, options: Record<string, unknown> = {}) =>
    addAutomation({ name, trigger: 'button', type, action: { kind: 'script', code, ...options } });
  const runsOf = async (id: string) =>
    (await h.request('GET', `/api/automations/runs?automation=${id}`)).body as RunRecord[];
  /** The automation's runs once `count` of them are done or failed. */
  const finished = (id: string, count = 1) =>
    waitFor(`${count} finished run(s)`, async () => {
      const runs = await runsOf(id);
      const done = runs.filter((r) => r.state === 'done' || r.state === 'failed');
      return done.length >= count ? done : undefined;
    });
  /** Runs `code` as a button script on one entity, pressed by `token`'s user (the admin's without), and answers its finished run. */
  const runScript = async (type: string, entityId: string, code: string, token?: string) => {
    const { id } = await addScriptButton('Script', type, code);
    const pressed = await h.request('POST', `/api/automations/${id}/run`, { entityIds: [entityId] }, token);
    expect(pressed.status, JSON.stringify(pressed.body)).toBe(202);
    const [run] = await finished(id);
    return run as RunRecord & { answer: any };
  };
  return { addAutomation, addScriptButton, runsOf, finished, runScript };
}
