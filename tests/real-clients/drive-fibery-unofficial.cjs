// Runs every operation the npm package fibery-unofficial offers, unchanged, against
// https://$FIBERY_HOST with $FIBERY_TOKEN, and prints one JSON object: for each step its value or
// its error. Run by fibery-unofficial.test.ts in a process of its own, so that the workspace's
// self-signed certificate is trusted the way a user would trust it (NODE_EXTRA_CA_CERTS).
const fs = require('node:fs');
const path = require('node:path');
const Fibery = require('fibery-unofficial');

const fibery = new Fibery({ host: process.env.FIBERY_HOST, token: process.env.FIBERY_TOKEN });
const dir = process.env.WORK_DIR;
const PROJECT = '11111111-1111-4111-8111-111111111111';
const LAUNCH = '22222222-2222-4222-8222-222222222222';
const LAND = '33333333-3333-4333-8333-333333333333';
const out = {};

async function step(name, fn) {
  try {
    out[name] = { ok: true, value: await fn() };
  } catch (error) {
    out[name] = { ok: false, error: String(error?.message ?? error).slice(0, 1000) };
  }
  return out[name].value;
}

async function main() {
  await step('schema', async () => (await fibery.getSchema()).map((t) => t['fibery/name']));
  await step('types.create', () =>
    fibery.type.createBatch([
      { 'fibery/name': 'Rc/Task', 'fibery/meta': { 'fibery/domain?': true, 'ui/color': '#F7D130' } },
      { 'fibery/name': 'Rc/Project', 'fibery/meta': { 'fibery/domain?': true } },
      { 'fibery/name': 'Rc/Scratch', 'fibery/meta': { 'fibery/domain?': true } },
    ]),
  );
  await step('types.rename', () =>
    fibery.type.renameBatch([{ 'from-name': 'Rc/Scratch', 'to-name': 'Rc/Temp' }]),
  );
  await step('types.delete', () => fibery.type.deleteBatch([{ name: 'Rc/Temp' }]));
  await step('fields.create', () =>
    fibery.field.createBatch([
      { 'fibery/holder-type': 'Rc/Task', 'fibery/name': 'Rc/Points', 'fibery/type': 'fibery/int' },
      { 'fibery/holder-type': 'Rc/Task', 'fibery/name': 'Rc/Extra', 'fibery/type': 'fibery/text' },
      { 'fibery/holder-type': 'Rc/Task', 'fibery/name': 'Rc/Notes', 'fibery/type': 'fibery/text' },
      {
        'fibery/holder-type': 'Rc/Task',
        'fibery/name': 'Rc/Description',
        'fibery/type': 'Collaboration~Documents/Document',
        'fibery/meta': { 'fibery/entity-component?': true },
      },
      {
        'fibery/holder-type': 'Rc/Task',
        'fibery/name': 'Rc/Project',
        'fibery/type': 'relation',
        meta: { to: 'Rc/Project', toName: 'Rc/Tasks', isFromMany: true, isToMany: false },
      },
      {
        'fibery/holder-type': 'Rc/Task',
        'fibery/name': 'Rc/Status',
        'fibery/type': 'single-select',
        meta: { options: [{ name: 'Open' }, { name: 'Done' }] },
      },
    ]),
  );
  await step('fields.rename', () =>
    fibery.field.renameBatch([
      { 'holder-type': 'Rc/Task', 'from-name': 'Rc/Extra', 'to-name': 'Rc/Renamed' },
    ]),
  );
  await step('fields.delete', () =>
    fibery.field.deleteBatch([{ 'holder-type': 'Rc/Task', name: 'Rc/Notes' }]),
  );
  const options = await step('selects.query', () =>
    fibery.entity.query({
      'q/from': 'Rc/Status_Rc/Task',
      'q/select': ['fibery/id', 'enum/name'],
      'q/limit': 'q/no-limit',
    }),
  );
  const done = (options ?? []).find((o) => o['enum/name'] === 'Done');
  await step('entities.create', () =>
    fibery.entity.createBatch([
      { type: 'Rc/Project', entity: { 'fibery/id': PROJECT, 'fibery/name': 'Apollo' } },
      { type: 'Rc/Task', entity: { 'fibery/id': LAUNCH, 'fibery/name': 'Launch', 'Rc/Points': 3 } },
      { type: 'Rc/Task', entity: { 'fibery/id': LAND, 'fibery/name': 'Land', 'Rc/Points': 5 } },
    ]),
  );
  await step('entities.update', () =>
    fibery.entity.updateBatch([
      {
        type: 'Rc/Task',
        entity: {
          'fibery/id': LAUNCH,
          'Rc/Points': 8,
          'Rc/Renamed': 'renamed field',
          'Rc/Project': { 'fibery/id': PROJECT },
          'Rc/Status': { 'fibery/id': done?.['fibery/id'] },
        },
      },
    ]),
  );
  const link = [
    {
      type: 'Rc/Project',
      field: 'Rc/Tasks',
      entity: { 'fibery/id': PROJECT },
      items: [{ 'fibery/id': LAND }],
    },
  ];
  await step('collections.add', () => fibery.entity.addToEntityCollectionFieldBatch(link));
  await step('entities.query', () =>
    fibery.entity.query(
      {
        'q/from': 'Rc/Project',
        'q/select': [
          'fibery/name',
          {
            'Rc/Tasks': {
              'q/select': ['fibery/name', 'Rc/Points', { 'Rc/Status': ['enum/name'] }],
              'q/order-by': [[['fibery/name'], 'q/asc']],
              'q/limit': 'q/no-limit',
            },
          },
        ],
        'q/where': ['=', ['fibery/id'], '$id'],
        'q/limit': 1,
      },
      { $id: PROJECT },
    ),
  );
  await step('commands.execute', () =>
    fibery.command.execute(
      fibery.command.queryEntityCmd({ 'q/from': 'Rc/Task', 'q/select': ['fibery/name'], 'q/limit': 10 }),
    ),
  );
  await step('collections.remove', () => fibery.entity.removeFromEntityCollectionFieldBatch(link));
  await step('entities.delete', () =>
    fibery.entity.deleteBatch([{ type: 'Rc/Task', entity: { 'fibery/id': LAND } }]),
  );
  await step('failure', () => fibery.entity.createBatch([{ type: 'Rc/Nope', entity: {} }]));
  const upload = path.join(dir, 'hello.txt');
  fs.writeFileSync(upload, 'hello from fibery-unofficial');
  const file = await step('files.upload', async () => JSON.parse(await fibery.file.upload(upload)));
  await step('files.download', async () => {
    await fibery.file.download(file['fibery/secret'], path.join(dir, 'back.txt'));
    return fs.readFileSync(path.join(dir, 'back.txt'), 'utf8');
  });
  const rows = await fibery.entity.query(
    {
      'q/from': 'Rc/Task',
      'q/select': [{ 'Rc/Description': ['Collaboration~Documents/secret'] }],
      'q/where': ['=', ['fibery/id'], '$id'],
    },
    { $id: LAUNCH },
  );
  const secret = rows[0]['Rc/Description']['Collaboration~Documents/secret'];
  await step('documents.update', () => fibery.document.update(secret, '# Plan\n\nGo **now**'));
  await step('documents.get', async () => JSON.parse(await fibery.document.get(secret)));
  await step('documents.get.html', async () => JSON.parse(await fibery.document.get(secret, 'html')));
  await step('documents.get.json', async () => JSON.parse(await fibery.document.get(secret, 'json')));
  await step('documents.getBatch', () => fibery.document.getBatch([{ secret }]));
  await step('documents.update.html', async () => {
    await fibery.document.update(secret, '<p>Now <em>html</em></p>', 'html');
    return JSON.parse(await fibery.document.get(secret, 'md'));
  });
}

main().then(
  () => console.log(JSON.stringify(out)),
  (error) =>
    console.log(JSON.stringify({ ...out, crashed: { ok: false, error: String(error?.stack ?? error) } })),
);
