import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { automationRuns } from './support/automation-runs.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

// The workflow mixin as the service's schema has it: workflow/state onto a state type of the
// type's own, whose states say which are final; what clients read and filter, and scripts set.

const T = 'wf/task';
const STATES = 'workflow/state_wf/task';

describeEachDatabase('the workflow mixin', (target) => {
  const h = useWorkspace(target);
  const { addScriptButton, finished } = automationRuns(h);
  const tasks = async (where?: unknown, params?: Record<string, unknown>) =>
    (
      await h.run('svc.entity/query', {
        query: {
          'q/from': T,
          'q/select': {
            name: 'wf/name',
            state: ['workflow/state', 'enum/name'],
            final: ['workflow/state', 'workflow/Final'],
          },
          ...(where ? { 'q/where': where } : {}),
          'q/order-by': [[['svc/creation-date'], 'q/asc']],
          'q/limit': 'q/no-limit',
        },
        params,
      })
    ).map((r: any) => `${r.name}:${r.state}${r.final ? '!' : ''}`);

  beforeAll(async () => {
    await h.run('schema.type/create', typeArgs(T));
    await h.run('svc.entity/create', { type: T, entity: { 'wf/name': 'before' } });
    await h.run('svc.schema/batch', {
      commands: [
        {
          command: 'svc.app/install-mixins',
          args: { types: { [T]: ['svc/rank-mixin', 'workflow/workflow'] } },
        },
      ],
    });
  });

  it('gives the type a required workflow/state onto its own state type, in Open, In Progress, Done', async () => {
    const schema = await h.run('svc.schema/query');
    const type = schema['svc/types'].find((t: any) => t['svc/name'] === T);
    const states = schema['svc/types'].find((t: any) => t['svc/name'] === STATES);
    expect(type['svc/meta']['app/mixins']).toMatchObject({ 'workflow/workflow': true });
    const field = type['svc/fields'].find((f: any) => f['svc/name'] === 'workflow/state');
    expect(field['svc/type']).toBe(STATES);
    expect(field['svc/meta']).toMatchObject({
      'svc/required?': true,
      'svc/default-value': { 'svc/id': expect.any(String) },
    });
    expect(states['svc/meta']).toMatchObject({ 'svc/enum?': true });
    expect(states['svc/fields'].map((f: any) => f['svc/name'])).toEqual(
      expect.arrayContaining(['enum/name', 'enum/icon', 'svc/rank', 'workflow/Final']),
    );
    const options = await h.run('svc.entity/query', {
      query: {
        'q/from': STATES,
        'q/select': ['svc/id', 'enum/name', 'workflow/Final'],
        'q/order-by': [[['svc/rank'], 'q/asc']],
      },
    });
    expect(options.map((o: any) => [o['enum/name'], o['workflow/Final']])).toEqual([
      ['Open', false],
      ['In Progress', false],
      ['Done', true],
    ]);
    expect(field['svc/meta']['svc/default-value']['svc/id']).toBe(options[0]['svc/id']);
    // The entity made before is in Open; so is a new one; installing it again changes nothing.
    await h.run('svc.entity/create', { type: T, entity: { 'wf/name': 'after' } });
    await h.run('svc.app/install-mixins', { types: { [T]: ['workflow/workflow'] } });
    expect(await tasks()).toEqual(['before:Open', 'after:Open']);
  });

  it('is read and filtered through its states, as clients do', async () => {
    const [done] = await h.run('svc.entity/query', {
      query: { 'q/from': STATES, 'q/select': ['svc/id'], 'q/where': ['=', ['enum/name'], '$n'] },
      params: { $n: 'Done' },
    });
    const [before] = await h.run('svc.entity/query', {
      query: { 'q/from': T, 'q/select': ['svc/id'], 'q/where': ['=', ['wf/name'], '$n'] },
      params: { $n: 'before' },
    });
    await h.run('svc.entity/update', {
      type: T,
      entity: { 'svc/id': before['svc/id'], 'workflow/state': done },
    });
    expect(await tasks(['!=', ['workflow/state', 'workflow/Final'], '$t'], { $t: true })).toEqual([
      'after:Open',
    ]);
    expect(await tasks(['=', ['workflow/state', 'enum/name'], '$s'], { $s: 'Done' })).toEqual([
      'before:Done!',
    ]);
    const cleared = await h.attempt('svc.entity/update', {
      type: T,
      entity: { 'svc/id': before['svc/id'], 'workflow/state': null },
    });
    expect(cleared.error?.code).toBe('invalid-value');
  });

  it("a script's setState and setStateToFinal move an entity through it", async () => {
    const made = await addScriptButton(
      'Progress',
      T,
      `
          const svc = context.getService('svc');
          const e = args.currentEntities[0];
          // As the service's scripts read and write it: State, Name, a state by its name.
          const seen = { name: e.Name, state: e.State.Name };
          await svc.updateEntity(e.type, e.Id, { State: 'Done' });
          const done = await svc.getEntityById(e.type, e.Id, [{ 'workflow/state': ['enum/name'] }]);
          await svc.setState(e.type, e.Id, 'In Progress');
          let unknown;
          try { await svc.updateEntity(e.type, e.Id, { State: 'Nope' }); } catch (x) { unknown = x.message; }
          await svc.setStateToFinal(e.type, e.Id);
          return { seen, done: done['workflow/state']['enum/name'], unknown };
        `,
    );
    const [after] = await h.run('svc.entity/query', {
      query: { 'q/from': T, 'q/select': ['svc/id'], 'q/where': ['=', ['wf/name'], '$n'] },
      params: { $n: 'after' },
    });
    await h.request('POST', `/api/automations/${made.id}/run`, { entityIds: [after['svc/id']] });
    const [run] = await finished(made.id);
    expect(run!.message).toBeNull();
    expect(run!.answer).toEqual({
      seen: { name: 'after', state: 'Open' },
      done: 'Done',
      unknown: 'workflow/state has no option "Nope"',
    });
    expect(await tasks()).toEqual(['before:Done!', 'after:Done!']);
  });
});

describeEachDatabase('workflow/install, as the service page installs a workflow', (target) => {
  const h = useWorkspace(target);
  const TICKET = 'wf/ticket';

  it('makes the states given, in order, the Finished ones final, and starts entities in the default one', async () => {
    await h.run('schema.type/create', typeArgs(TICKET));
    await h.run('svc.entity/create', { type: TICKET, entity: { 'wf/name': 'old' } });
    const [todo, doing, done] = [randomUUID(), randomUUID(), randomUUID()];
    const states = [
      {
        'svc/id': todo,
        'enum/name': 'To Do',
        'enum/color': null,
        'enum/icon': null,
        'workflow/Type': 'Not started',
      },
      {
        'svc/id': doing,
        'enum/name': 'Doing',
        'enum/color': '#f00',
        'enum/icon': null,
        'workflow/Type': 'Started',
      },
      {
        'svc/id': done,
        'enum/name': 'Shipped',
        'enum/color': null,
        'enum/icon': null,
        'workflow/Type': 'Finished',
      },
    ];
    expect(await h.run('workflow/install', { type: TICKET, states, 'default-state-id': doing })).toBe('ok');
    const options = await h.run('svc.entity/query', {
      query: {
        'q/from': `workflow/state_${TICKET}`,
        'q/select': ['svc/id', 'enum/name', 'enum/color', 'workflow/Final'],
        'q/order-by': [[['svc/rank'], 'q/asc']],
      },
    });
    expect(options).toEqual([
      { 'svc/id': todo, 'enum/name': 'To Do', 'enum/color': null, 'workflow/Final': false },
      { 'svc/id': doing, 'enum/name': 'Doing', 'enum/color': '#f00', 'workflow/Final': false },
      { 'svc/id': done, 'enum/name': 'Shipped', 'enum/color': null, 'workflow/Final': true },
    ]);
    await h.run('svc.entity/create', { type: TICKET, entity: { 'wf/name': 'new' } });
    const rows = await h.run('svc.entity/query', {
      query: {
        'q/from': TICKET,
        'q/select': { name: 'wf/name', state: ['workflow/state', 'enum/name'] },
        'q/order-by': [[['svc/creation-date'], 'q/asc']],
      },
    });
    expect(rows).toEqual([
      { name: 'old', state: 'Doing' },
      { name: 'new', state: 'Doing' },
    ]);
    const schema = await h.run('svc.schema/query');
    const type = schema['svc/types'].find((t: any) => t['svc/name'] === TICKET);
    expect(type['svc/meta']['app/mixins']).toMatchObject({ 'workflow/workflow': true });
    // Once: a second install is refused, its states are changed as entities.
    const again = await h.attempt('workflow/install', { type: TICKET, states });
    expect(again.error).toMatchObject({ status: 409 });
  });

  it('refuses what it cannot make, naming it', async () => {
    await h.run('schema.type/create', typeArgs('wf/other'));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'wf/other', states: [] }, 'states'],
      [
        { type: 'wf/other', states: [{ 'enum/name': 'A', 'workflow/Type': 'Later' }] },
        'states.0.workflow/Type',
      ],
      [
        { type: 'wf/other', states: [{ 'enum/name': 'A' }], 'default-state-id': randomUUID() },
        'default-state-id',
      ],
      [{ type: 'wf/other', states: [{ 'svc/id': 'x', 'enum/name': 'A' }] }, 'not a uuid'],
    ];
    for (const [args, says] of cases) {
      const r = await h.attempt('workflow/install', args);
      expect(r.error).toMatchObject({ code: 'invalid-args', status: 400 });
      expect(r.error.message).toContain(says);
    }
    expect(
      (await h.attempt('workflow/install', { type: 'wf/none', states: [{ 'enum/name': 'A' }] })).success,
    ).toBe(false);
  });
});
