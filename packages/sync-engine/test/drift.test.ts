// The drift property against real core apps over HTTP: a correct app's delta equals a fresh full
// sync; each app written to drift is caught, with the kind of drift it makes.
import { type TestApp, testApp } from '@weft/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AppClient, DigestTable, DriftCheck, type DriftRun, runDrift } from '../src/index.js';
import { changeTracker, type DriftBug, Tracker, trackerApp } from './drift-apps.js';

const FIELDS = ['name', 'done', 'project'];

describe('DigestTable and DriftCheck', () => {
  it('applies SET (merging the fields a row carries), REMOVE and compares per id and value', () => {
    const table = new DigestTable(FIELDS);
    table.set('a', { name: 'A', done: false, project: 'P' }, false);
    table.set('b', { name: 'B', done: false, project: 'P' }, false);
    table.set('c', { name: 'C' }, false);
    // A delta SET carrying one field changes that field only.
    table.set('a', { done: true }, true);
    expect(table.delete('c')).toBe(true);
    expect(table.delete('c')).toBe(false);
    table.set('d', { name: 'D', done: null, project: 'P' }, false);
    const check = new DriftCheck('task', table);
    check.see('a', { name: 'A', done: true, project: 'P' });
    check.see('b', { name: 'B', done: false, project: 'Q' });
    // An absent field and null are the same stored value.
    check.see('d', { name: 'D', project: 'P' });
    check.see('e', { name: 'E', done: false, project: 'P' });
    check.see('e', { name: 'E', done: false, project: 'P' });
    expect(check.finish()).toEqual({
      type: 'task',
      rows: 5,
      stateRows: 3,
      missing: 1,
      extra: 0,
      changed: 1,
      samples: {
        missing: [{ id: 'e', actual: { name: 'E', done: false, project: 'P' } }],
        extra: [],
        changed: [{ id: 'b', fields: ['project'], actual: { project: 'Q' } }],
      },
    });
  });

  it('names the ids the full sync no longer has, and reuses freed slots', () => {
    const table = new DigestTable(['name']);
    for (let i = 0; i < 1000; i++) table.set(`r${i}`, { name: `R${i}` }, false);
    for (let i = 0; i < 1000; i += 2) table.delete(`r${i}`);
    for (let i = 0; i < 500; i++) table.set(`s${i}`, { name: `S${i}` }, false);
    expect(table.size).toBe(1000);
    const check = new DriftCheck('t', table);
    for (let i = 1; i < 1000; i += 2) if (i !== 501) check.see(`r${i}`, { name: `R${i}` });
    for (let i = 0; i < 500; i++) check.see(`s${i}`, { name: `S${i}` });
    const drift = check.finish();
    expect([drift.missing, drift.extra, drift.changed]).toEqual([0, 1, 0]);
    expect(drift.samples.extra).toEqual([{ id: 'r501' }]);
  });
});

describe('DigestTable memory', () => {
  it('holds digests, not rows: under 64 bytes a row for three fields (ids aside)', () => {
    const table = new DigestTable(FIELDS);
    const long = 'x'.repeat(500);
    for (let i = 0; i < 100_000; i++)
      table.set(`task-${i}`, { name: `${long}${i}`, done: i % 2 === 0, project: long }, false);
    expect(table.size).toBe(100_000);
    expect(table.bytes / table.size).toBeLessThan(64);
  });
});

describe('runDrift against apps over HTTP', () => {
  let running: TestApp | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  const drift = async (bug?: DriftBug): Promise<DriftRun> => {
    const tracker = new Tracker();
    running = await testApp(trackerApp(tracker, bug));
    return runDrift(new AppClient(running.url), {
      types: { task: FIELDS },
      account: {},
      filter: {},
      between: () => changeTracker(tracker),
    });
  };
  const counts = (run: DriftRun) => {
    const d = run.drift[0];
    return d && { missing: d.missing, extra: d.extra, changed: d.changed };
  };

  it('finds no drift in a correct app: its delta (with REMOVE) equals the fresh full sync', async () => {
    const run = await drift();
    expect(run.delta.task).toMatchObject({ synchronizationType: 'delta', removed: 1 });
    expect(counts(run)).toEqual({ missing: 0, extra: 0, changed: 0 });
    expect(run.drift[0]?.rows).toBe(12);
  });

  it('no REMOVE: the deleted task is an extra row', async () => {
    const run = await drift('no-remove');
    expect(counts(run)).toEqual({ missing: 0, extra: 1, changed: 0 });
    expect(run.drift[0]?.samples.extra).toEqual([{ id: 't02' }]);
  });

  it('a missed page boundary: changed tasks sharing a modification time are lost', async () => {
    const run = await drift('page-boundary');
    // t01 and t03 make the delta's first page; t04 to t13, changed at the same time, are skipped.
    expect(counts(run)).toEqual({ missing: 1, extra: 0, changed: 4 });
    expect(run.drift[0]?.samples.changed.map((s) => s.id)).toEqual(['t04', 't05', 't06', 't07']);
  });

  it('a too-small margin: every change stamped by the late clock is missed', async () => {
    const run = await drift('margin');
    expect(counts(run)).toEqual({ missing: 1, extra: 1, changed: 6 });
    expect(run.drift[0]?.samples.missing.map((s) => s.id)).toEqual(['t13']);
  });

  it('unstable ids: every row is missing under its new id, extra under its old ones', async () => {
    const run = await drift('unstable-ids');
    // The 12 ids of the first sync and the 7 the delta set are all gone from the second.
    expect(counts(run)).toEqual({ missing: 12, extra: 19, changed: 0 });
  });

  it('a value changed without its modification date: the renamed project, field named', async () => {
    const run = await drift('quiet-value');
    expect(counts(run)).toEqual({ missing: 0, extra: 0, changed: 3 });
    expect(run.drift[0]?.samples.changed[0]).toEqual({
      id: 't01',
      fields: ['project'],
      actual: { project: 'Garden and orchard' },
    });
  });
});
