import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ChatInbox, INBOX_TYPE, startChatInbox } from '../src/quickstart/chat-inbox.js';
import { describeEachDatabase, useWorkspace } from './support/databases.js';

// The quick start's chat receiver over real HTTP: a message in the incoming-webhook shape becomes
// an inbox/message entity; anything else is refused with a 4xx and stores nothing.

describeEachDatabase('chat inbox', (target) => {
  const h = useWorkspace(target);
  let inbox: ChatInbox;
  beforeAll(async () => {
    inbox = await startChatInbox(h.ws);
  });
  afterAll(async () => {
    await inbox?.close();
  });
  const post = (body: string) =>
    fetch(inbox.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const stored = async () =>
    (await h.run('svc.entity/query', {
      query: {
        'q/from': INBOX_TYPE,
        'q/select': ['inbox/name', 'inbox/channel', 'inbox/received-at'],
        'q/limit': 10,
      },
    })) as Array<Record<string, unknown>>;

  it('stores each message as an entity, and refuses what is not one', async () => {
    expect((await post(JSON.stringify({ text: 'New book: Dune', channel: '#books' }))).status).toBe(200);
    expect(await stored()).toEqual([
      { 'inbox/name': 'New book: Dune', 'inbox/channel': '#books', 'inbox/received-at': expect.any(String) },
    ]);
    expect((await post('not json')).status).toBe(400);
    expect((await post(JSON.stringify({ text: '' }))).status).toBe(400);
    expect((await post(JSON.stringify({ text: 'x'.repeat(70_000) }))).status).toBe(413);
    expect((await fetch(inbox.url)).status).toBe(405);
    expect(await stored()).toHaveLength(1);
  });

  it('finds its type again on a later start', async () => {
    const again = await startChatInbox(h.ws);
    try {
      expect((await post(JSON.stringify({ text: 'second' }))).status).toBe(200);
      expect(await stored()).toHaveLength(2);
    } finally {
      await again.close();
    }
  });
});
