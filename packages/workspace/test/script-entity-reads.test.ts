import { beforeAll, expect, it } from 'vitest';
import { automationRuns } from './support/automation-runs.js';
import { AUTHOR, BOOK, type Seeded, seedBookshelf } from './support/bookshelf-seed.js';
import { describeEachDatabase, typeArgs, useWorkspace } from './support/databases.js';

// What scripts written for the real service read back, as they read it there: `entity.id` of its
// script template, a rich-text field's `Secret` in the entity, relations asked for by key as `{Id, Name}` and `[{Id, Name}]`, a rich-text
// field's `Secret`, the entity's `Id` with any fields asked for, and getSchema()'s typeObjects.

describeEachDatabase('scripts reading entities as the service answers them', (target) => {
  const h = useWorkspace(target);
  const { runScript } = automationRuns(h);
  let s: Seeded;

  beforeAll(async () => {
    s = await seedBookshelf(h);
  });

  it('reads entity.id and entity.type as the service’s script template does', async () => {
    // The service's template, as a new script action starts: collections are asked for by key.
    const run = await runScript(
      BOOK,
      s.books[0]!,
      `
      const svc = context.getService('svc');
      const entity = args.currentEntities[0];
      const withExtraFields = await svc.getEntityById(entity.type, entity.id, ['author', 'Comments']);
      // a rich-text field is there as its document's secret, as the service's scripts read it
      const summary = await svc.getDocumentContent(entity.summary.Secret, 'md');
      // id beside Id on what is read back and on relation values too, as real scripts read them
      const ids = [withExtraFields.id === entity.id, withExtraFields.author.id, entity.author.id, 'id' in JSON.parse(JSON.stringify(withExtraFields))];
      // the service's own fields by the titles its UI gives them
      const me = await svc.getEntityById('svc/user', args.currentUser.Id, ['Name', 'Email']);
      // an entity made answers in full names, and its Id (and id) read as well
      const made = await svc.createEntity('${AUTHOR}', { Name: 'Ursula' });
      ids.push(made.Id === made['svc/id'], made.id === made['svc/id'], Object.keys(made).includes('Id'));
      // entity.Type too, as real scripts read the type's name
      ids.push(entity.Type === entity.type, Object.keys(entity).includes('Type'));
      return { id: entity.id, withExtraFields, listed: Object.keys(entity).includes('id'), json: JSON.parse(JSON.stringify(entity)).id, summary: summary.split('\\n')[0], summaryKeys: Object.keys(entity.summary), ids, me };
      `,
    );
    expect(run.message).toBeNull();
    expect(run.answer).toEqual({
      id: s.books[0],
      withExtraFields: {
        Id: s.books[0],
        author: { Id: s.authors[0], Name: 'Ursula K. Le Guin' },
        Comments: [],
      },
      // a hidden alias, as `Name` is: not listed, not in JSON
      listed: false,
      summary: '# An ambiguous utopia',
      summaryKeys: ['Id', 'Secret'],
      ids: [true, s.authors[0], s.authors[0], false, true, true, false, true, false],
      // the workspace's first admin has no e-mail
      me: { Id: h.ws.adminUserId, Name: 'Admin', Email: null },
    });
  });

  it('keeps entity.id the entity’s own where a synced type has an id field of its own', async () => {
    await h.run('svc.schema/batch', {
      commands: [{ command: 'schema.type/create', args: typeArgs('shop/item', [['shop/id', 'svc/text']]) }],
    });
    const item = await h.run('svc.entity/create', {
      type: 'shop/item',
      entity: { 'shop/name': 'Kettle', 'shop/id': 'sku-17' },
    });
    const run = await runScript(
      'shop/item',
      item['svc/id'],
      `
      const svc = context.getService('svc');
      const entity = args.currentEntities[0];
      const read = await svc.getEntityById(entity.type, entity.id, ['Name', 'shop/id']);
      return { id: entity.id, own: entity['shop/id'], keys: Object.keys(entity).filter((k) => /id$/i.test(k)), read };
      `,
    );
    expect(run.message).toBeNull();
    expect(run.answer).toEqual({
      id: item['svc/id'],
      own: 'sku-17',
      // the app's own id is keyed by its full name: id is the entity's
      keys: ['Id', 'Public Id', 'shop/id'],
      read: { Id: item['svc/id'], Name: 'Kettle', 'shop/id': 'sku-17' },
    });
  });

  it('answers relations asked for by key as {Id, Name}, collections as [{Id, Name}], rich text as {Id, Secret}', async () => {
    const run = await runScript(
      AUTHOR,
      s.authors[0]!,
      `
      const svc = context.getService('svc');
      const author = args.currentEntities[0];
      const withBooks = await svc.getEntityById(author.type, author.Id, ['Name', 'books']);
      const first = await svc.getEntityById('${BOOK}', '${s.books[0]}', ['summary', 'pages']);
      const text = await svc.getDocumentContent(first.summary.Secret, 'md');
      const byNames = await svc.getEntityById(author.type, author.Id, ['bookshelf/books']);
      return { withBooks, first, text: text.split('\\n')[0], byNames };
      `,
    );
    expect(run.message).toBeNull();
    const { withBooks, first, text, byNames } = run.answer;
    expect(withBooks).toEqual({ Id: s.authors[0], Name: 'Ursula K. Le Guin', books: expect.any(Array) });
    expect(withBooks.books).toHaveLength(2);
    expect(withBooks.books).toEqual(
      expect.arrayContaining([
        { Id: s.books[0], Name: 'The Dispossessed' },
        { Id: s.books[2], Name: 'Book <2>' },
      ]),
    );
    expect(first).toEqual({
      Id: s.books[0],
      summary: { Id: expect.any(String), Secret: expect.any(String) },
      pages: 100,
    });
    expect(text).toBe('# An ambiguous utopia');
    // A list of full names is a q/select as written: answered as svc.entity/query answers it.
    expect(Object.keys(byNames)).toEqual(['bookshelf/books']);
    expect(byNames['bookshelf/books']).toEqual(
      expect.arrayContaining([{ 'svc/id': s.books[0] }, { 'svc/id': s.books[2] }]),
    );
  });

  it('answers getEntitiesByIds with each entity’s Id beside the fields asked for by key', async () => {
    const run = await runScript(
      AUTHOR,
      s.authors[0]!,
      `
      const svc = context.getService('svc');
      const found = await svc.getEntitiesByIds('${AUTHOR}', ${JSON.stringify(s.authors)}, ['country']);
      let unknown;
      try { await svc.getEntitiesByIds('${AUTHOR}', ${JSON.stringify(s.authors)}, ['country', 'Birthplace']); } catch (e) { unknown = e.message; }
      return { found, unknown };
      `,
    );
    expect(run.message).toBeNull();
    expect(run.answer.found).toEqual([
      { Id: s.authors[0], country: 'US' },
      { Id: s.authors[1], country: 'PL' },
    ]);
    expect(run.answer.unknown).toMatch(/Birthplace/);
  });

  it('answers getSchema() with typeObjects whose fields are found by their title', async () => {
    const run = await runScript(
      BOOK,
      s.books[0]!,
      `
      const svc = context.getService('svc');
      const schema = await svc.getSchema();
      const book = schema.typeObjectsByName[args.currentEntities[0].type];
      const author = book.fieldObjects.find((f) => f.title === 'author');
      const pick = (f) => ({ name: f.name, title: f.title, type: f.type, holderType: f.holderType, isRelation: f.isRelation, isCollection: f.isCollection, relation: f.relation });
      return {
        types: schema.typeObjects.map((t) => t.name),
        fields: { idField: book.idField, titleField: book.titleField, publicIdField: book.publicIdField },
        author: pick(author),
        books: pick(schema.typeObjectsByName['${AUTHOR}'].fieldObjectsByName['bookshelf/books']),
        pages: pick(book.fieldObjects.find((f) => f.title === 'pages')),
        created: book.fieldObjects.find((f) => f.title === 'Creation Date').name,
        raw: Array.isArray(schema['svc/types']),
        // linked as the service's schema objects are, without making JSON of it fail
        related: author.relatedFieldObject.name,
        target: [author.typeObject.name, author.holderTypeObject.name, author.typeObject.isEnum],
        byName: book.fieldObjectsByName['bookshelf/author'] === author,
        cardinality: [author.cardinality, author.relatedFieldObject.cardinality, book.fieldObjects.find((f) => f.title === 'Created By').cardinality, book.fieldObjects.find((f) => f.title === 'pages').cardinality],
        userTitles: schema.typeObjectsByName['svc/user'].fieldObjects.map((f) => f.title),
        printed: JSON.parse(JSON.stringify(schema)).typeObjects.length === schema.typeObjects.length,
      };
      `,
    );
    expect(run.message).toBeNull();
    const a = run.answer;
    expect(a.types).toEqual(expect.arrayContaining([BOOK, AUTHOR, 'svc/user', 'svc/int']));
    expect(a.fields).toEqual({
      idField: 'svc/id',
      titleField: 'bookshelf/name',
      publicIdField: 'svc/public-id',
    });
    expect(a.author).toEqual({
      name: 'bookshelf/author',
      title: 'author',
      type: AUTHOR,
      holderType: BOOK,
      isRelation: true,
      isCollection: false,
      relation: expect.any(String),
    });
    expect(a.books).toEqual({
      ...a.author,
      name: 'bookshelf/books',
      title: 'books',
      type: BOOK,
      holderType: AUTHOR,
      isCollection: true,
    });
    expect(a.pages).toMatchObject({ type: 'svc/int', isRelation: false, relation: null });
    expect(a.created).toBe('svc/creation-date');
    expect(a.raw).toBe(true);
    expect(a.related).toBe('bookshelf/books');
    expect(a.target).toEqual([AUTHOR, BOOK, false]);
    expect(a.byName).toBe(true);
    expect(a.cardinality).toEqual([
      ':cardinality/many-to-one',
      ':cardinality/one-to-many',
      ':cardinality/many-to-one',
      null, // a primitive field has none (undefined, which JSON makes null)
    ]);
    expect(a.userTitles).toEqual(expect.arrayContaining(['Id', 'Name', 'Email']));
    expect(a.printed).toBe(true);
  });
});
