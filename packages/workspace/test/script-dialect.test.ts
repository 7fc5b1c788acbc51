import { beforeAll, expect, it } from 'vitest';
import { automationRuns } from './support/automation-runs.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

// Scripts as they are written for the real service: `context.getService('fibery')` under the
// fibery namespace setting, with `fibery/…` names going in and coming back, and fields named as
// the UI shows them ({"Name": "New Task"}) next to full field names.

const TASK_FIELDS: [string, string][] = [
  ['Tasks/Effort', 'svc/int'],
  ['Tasks/Owner', 'svc/user'],
];

describeEachDatabase('scripts in the real service’s words (namespace fibery)', (target) => {
  const h = useWorkspace(target, { namespace: 'fibery' });
  const { runScript } = automationRuns(h);
  let taskId: string;

  beforeAll(async () => {
    const args = typeArgs('Tasks/Task', TASK_FIELDS);
    await h.run('fibery.schema/batch', {
      commands: [
        {
          command: 'schema.type/create',
          args: JSON.parse(JSON.stringify(args).replaceAll('svc/', 'fibery/')),
        },
      ],
    });
    const task = await h.run('fibery.entity/create', {
      type: 'Tasks/Task',
      entity: { 'Tasks/name': 'Swim farthest', 'Tasks/Effort': 3 },
    });
    taskId = task['fibery/id'];
  });

  it('reaches the workspace through getService("fibery") and speaks fibery names both ways', async () => {
    const run = await runScript(
      'Tasks/Task',
      taskId,
      `
      const fibery = context.getService('fibery');
      const task = args.currentEntities[0];
      const made = await fibery.createEntity('Tasks/Task', {
        name: 'Copy of ' + task.name, Effort: task.Effort + 1, 'Tasks/Owner': { 'fibery/id': args.currentUser.Id },
      });
      const byKeys = await fibery.getEntityById('Tasks/Task', made['fibery/id'], ['name', 'Effort']);
      const byNames = await fibery.getEntityById('Tasks/Task', made['fibery/id'], ['fibery/id', { 'Tasks/Owner': ['fibery/id'] }]);
      const queried = await fibery.executeSingleCommand({
        command: 'fibery.entity/query',
        args: {
          query: { 'q/from': 'Tasks/Task', 'q/select': ['fibery/public-id', 'Tasks/name'], 'q/where': ['=', ['fibery/id'], '$id'], 'q/limit': 1 },
          params: { $id: made['fibery/id'] },
        },
      });
      let wrongWord;
      try { context.getService('svc'); } catch (e) { wrongWord = e.message; }
      let unknownType;
      try { await fibery.getEntityById('fibery/nothing', made['fibery/id'], ['fibery/id']); } catch (e) { unknownType = e.message; }
      const schema = await fibery.getSchema();
      const type = schema.typeObjectsByName[task.type];
      const owner = type.fieldObjects.find((f) => f.title === 'Owner');
      const described = { idField: type.idField, owner: [owner.name, owner.type], raw: Array.isArray(schema['fibery/types']), id: task.id === task.Id };
      // a relation asked for by key comes back as scripts read it, whatever the word
      described.by = (await fibery.getEntityById(task.type, task.id, ['Created By']))['Created By'];
      return { made: Object.keys(made).filter((k) => k.startsWith('svc/') || k.startsWith('fibery/')), byKeys, byNames, queried, user: args.currentUser.type, wrongWord, unknownType, described };
      `,
    );
    expect(run.message).toBeNull();
    const { made, byKeys, byNames, queried, user, wrongWord, unknownType, described } = run.answer;
    expect(made).toEqual(expect.arrayContaining(['fibery/id', 'fibery/public-id']));
    expect(made.some((k: string) => k.startsWith('svc'))).toBe(false);
    // asked for by key: the entity's Id comes too, as the service answers it
    expect(byKeys).toEqual({ Id: byNames['fibery/id'], name: 'Copy of Swim farthest', Effort: 4 });
    expect(byNames).toEqual({
      'fibery/id': expect.any(String),
      'Tasks/Owner': { 'fibery/id': h.ws.adminUserId },
    });
    expect(queried).toEqual([
      { 'fibery/public-id': expect.any(String), 'Tasks/name': 'Copy of Swim farthest' },
    ]);
    expect(user).toBe('fibery/user');
    expect(wrongWord).toBe('Unknown service svc: this workspace names it fibery (its namespace setting)');
    expect(unknownType).toBe('Unknown type "fibery/nothing"');
    // getSchema's typeObjects speak the script's word too
    expect(described).toEqual({
      idField: 'fibery/id',
      owner: ['Tasks/Owner', 'fibery/user'],
      raw: true,
      id: true,
      by: { Id: h.ws.adminUserId, Name: 'Admin' },
    });
  });
});

describeEachDatabase('scripts naming fields as the UI does (namespace svc)', (target) => {
  const h = useWorkspace(target);
  const { runScript } = automationRuns(h);
  let taskId: string;

  beforeAll(async () => {
    await h.run('svc.schema/batch', {
      commands: [{ command: 'schema.type/create', args: typeArgs('Tasks/Task', TASK_FIELDS) }],
    });
    const task = await h.run('svc.entity/create', {
      type: 'Tasks/Task',
      entity: { 'Tasks/name': 'Swim farthest', 'Tasks/Effort': 3 },
    });
    taskId = task['svc/id'];
  });

  it('takes a field by its key where a full name goes, and answers it under that key', async () => {
    const run = await runScript(
      'Tasks/Task',
      taskId,
      `
      const svc = context.getService('svc');
      const task = args.currentEntities[0];
      await svc.updateEntity(task.type, task.Id, { Effort: 8, name: 'Swim further' });
      const read = await svc.getEntityById(task.type, task.Id, ['Id', 'name', 'Effort', 'Public Id']);
      const full = await svc.getEntityById(task.type, task.Id, ['Tasks/Effort']);
      let otherWord;
      try { context.getService('fibery'); } catch (e) { otherWord = e.message; }
      return { read, full, otherWord };
      `,
    );
    expect(run.message).toBeNull();
    expect(run.answer.read).toEqual({
      Id: taskId,
      name: 'Swim further',
      Effort: 8,
      'Public Id': expect.any(String),
    });
    expect(run.answer.full).toEqual({ 'Tasks/Effort': 8 });
    expect(run.answer.otherWord).toBe(
      'Unknown service fibery: this workspace names it svc (its namespace setting)',
    );
  });

  it('loads the entity for a user who may not read e-mails too, with its relation to a user', async () => {
    const code = `
      const task = args.currentEntities[0];
      return { by: task['Created By'], owner: task.Owner, keys: Object.keys(task) };
      `;
    const { token } = await h.ws.createUser({ name: 'Pat' });
    for (const who of [undefined, token]) {
      const run = await runScript('Tasks/Task', taskId, code, who);
      // Tasks/Owner is a user, whose e-mail only admins read: the entity is loaded with what the
      // user pressing the button may read.
      expect(run.message, who ? 'a user' : 'the admin').toBeNull();
      expect(run.answer.owner).toBeNull();
      // Who created it, a user too, under the service's own name for it.
      expect(run.answer.by).toEqual({ Id: h.ws.adminUserId, Name: 'Admin' });
      expect(run.answer.keys).toEqual(
        expect.arrayContaining(['Id', 'Public Id', 'Created By', 'Owner', 'Effort']),
      );
    }
  });
});
