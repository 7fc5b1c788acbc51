// `types` (`--types` on the command line): the kit syncs only the types a user would tick in the
// service, over real HTTP against a core app. A type left out is never asked for, its failures
// do not show, and a relation pointing at it is still valid; an id the app does not declare is an
// options error naming the app's types, before anything is synced.
import { auth, defineApp, field } from '@weft/core';
import { testApp } from '@weft/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli-main.js';
import {
  type ConformanceReport,
  ConformanceOptionsError,
  formatReport,
  runConformance,
} from '../src/index.js';

/** The types whose data handler ran, in the order asked. */
const asked: string[] = [];

const app = defineApp({
  id: 'picked',
  name: 'Picked',
  version: '1',
  description: 'Three types, one of them broken',
  website: 'https://example.test',
  authentication: [auth.none()],
  sync: {
    types: {
      task: {
        name: 'Task',
        fields: {
          id: field.id(),
          name: field.text(),
          project: field.relation({ to: 'project', cardinality: 'many-to-one', targetName: 'Tasks' }),
        },
        async *data() {
          asked.push('task');
          yield [{ id: 't1', name: 'One', project: 'p1' }];
        },
      },
      project: {
        name: 'Project',
        fields: { id: field.id(), name: field.text() },
        async *data() {
          asked.push('project');
          yield [{ id: 'p1', name: 'Garden' }];
        },
      },
      broken: {
        name: 'Broken',
        fields: { id: field.id(), name: field.text() },
        // biome-ignore lint/correctness/useYield: it fails before its first row
        async *data() {
          asked.push('broken');
          throw new Error('the upstream is down');
        },
      },
    },
  },
});

let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const running = await testApp(app);
  url = running.url;
  close = () => running.close();
});
afterAll(() => close());

type Checks = ConformanceReport['checks'];
/** The failed checks as `id (subject)`: a check's title ends with what it is about. */
const failed = (checks: Checks) =>
  checks
    .filter((c) => c.status === 'fail')
    .map((c) => `${c.id} ${/\(([^()]*)\)$/.exec(c.title)?.[0] ?? ''}`.trim());
/** The `types` of every recorded request that sends them (schema, data, datalist; bodies may be cut short). */
const typesSent = (checks: Checks) =>
  checks.flatMap((c) => {
    const body = typeof c.request?.body === 'string' ? c.request.body : '';
    const types = /"types":(\[[^\]]*\])/.exec(body)?.[1];
    return types ? [JSON.parse(types) as string[]] : [];
  });

describe('the types option', () => {
  it('syncs every type by default, so the broken one fails', async () => {
    asked.length = 0;
    const report = await runConformance(url, { timeoutMs: 5000 });
    expect(report.typesLeftOut).toBeUndefined();
    expect(new Set(asked)).toEqual(new Set(['task', 'project', 'broken']));
    expect(failed(report.checks)).toContain('data.response (broken)');
    expect(typesSent(report.checks)).toContainEqual(['task', 'project', 'broken']);
  });

  it('syncs only the types chosen: the others are never asked for, and a relation to one left out is valid', async () => {
    asked.length = 0;
    const report = await runConformance(url, { timeoutMs: 5000, types: ['task'] });
    expect(new Set(asked)).toEqual(new Set(['task']));
    expect(Object.keys(report.sync)).toEqual(['task']);
    // The report says what it does not cover, in its data and in its text.
    expect(report.typesLeftOut).toEqual(['project', 'broken']);
    expect(formatReport(report, { color: false })).toContain(
      'not synced (left out by --types): project, broken',
    );
    expect(failed(report.checks)).toEqual([]);
    // Every request that names types names the chosen one alone, as the service sends them.
    const sent = typesSent(report.checks);
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(sent.map((t) => t.join()))).toEqual(new Set(['task']));
    expect(report.checks.find((c) => c.id === 'schema.relation-target-type')?.status).toBe('pass');
    expect(report.checks.find((c) => c.id === 'data.relations' && c.title.endsWith('(task)'))).toMatchObject({
      status: 'skip',
      reason: expect.stringContaining("target 'project' is not among the synced types"),
    });
  });

  it('keeps the app’s order and resolves relations between the types chosen', async () => {
    asked.length = 0;
    const report = await runConformance(url, { timeoutMs: 5000, types: ['project', 'task'] });
    expect(Object.keys(report.sync)).toEqual(['task', 'project']);
    expect(report.sync.task?.relationCoverage).toEqual({ project: { total: 1, resolved: 1 } });
    expect(failed(report.checks)).toEqual([]);
  });

  it('refuses a type the app does not declare, naming the app’s types, before any sync', async () => {
    asked.length = 0;
    const run = runConformance(url, { timeoutMs: 5000, types: ['task', 'nope'] });
    await expect(run).rejects.toThrow(ConformanceOptionsError);
    await expect(run).rejects.toThrow("the app declares no type 'nope' (its types: task, project, broken)");
    expect(asked).toEqual([]);
    await expect(runConformance(url, { types: [] })).rejects.toThrow(
      'types must be a non-empty list of type ids',
    );
  });

  it('is --types on the command line: comma-separated, and a usage error when it names nothing', async () => {
    let stdout = '';
    let stderr = '';
    const io = {
      stdout: { write: (t: string) => (stdout += t), isTTY: false },
      stderr: { write: (t: string) => (stderr += t), isTTY: false },
      env: {},
    };
    asked.length = 0;
    expect(await main([url, '--types', 'task, project', '--json'], io)).toBe(0);
    expect(Object.keys((JSON.parse(stdout) as { sync: object }).sync)).toEqual(['task', 'project']);
    expect(new Set(asked)).toEqual(new Set(['task', 'project']));

    stdout = '';
    expect(await main([url, '--types', ' , '], io)).toBe(2);
    expect(stderr).toContain('--types: name at least one type id');
    stderr = '';
    expect(await main([url, '--types', 'nope'], io)).toBe(2);
    expect(stderr).toContain("the app declares no type 'nope'");
    stdout = '';
    expect(await main(['--help'], io)).toBe(0);
    expect(stdout).toContain('--types <ids>');
  });
});
