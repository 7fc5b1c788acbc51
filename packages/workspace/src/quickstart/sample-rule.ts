import { createAutomation, listAutomations, updateAutomation } from '../automations/store.js';
import { publicAutomation } from '../automations/definition.js';
import { loadCatalog } from '../schema/catalog.js';
import type { Workspace } from '../workspace.js';

// The quick start's one working rule: every new book (bookshelf) is posted by the chat-notify
// sample's `send-message` action to the local chat receiver (chat-inbox.ts), whose messages the
// page shows. Added after the first sync (else the whole library would be posted), and found again
// by name on the next start, when only its account (the receiver's address) is brought up to date.

export const SAMPLE_RULE = 'New book to chat';
const BOOK = 'bookshelf/book';

export async function ensureSampleRule(
  ws: Workspace,
  options: { chatNotifyUrl: string; inboxUrl: string },
): Promise<{ id: string; created: boolean } | undefined> {
  // Before the book type's first sync, a new rule would post every synced book.
  if (!(await loadCatalog(ws.driver)).findType(BOOK)) return undefined;
  const account = { webhookUrl: options.inboxUrl };
  const existing = (await listAutomations(ws.driver)).find((a) => a.name === SAMPLE_RULE);
  if (existing) {
    // Its definition is the user's now (they may have edited it); only the receiver's address moves.
    if (existing.action.kind === 'app') {
      const { accountFields: _shown, ...action } = publicAutomation(existing).action as Record<
        string,
        unknown
      >;
      await updateAutomation(ws.driver, existing.id, { ...existing, action: { ...action, account } });
    }
    return { id: existing.id, created: false };
  }
  const rule = await createAutomation(ws.driver, {
    name: SAMPLE_RULE,
    trigger: 'created',
    type: BOOK,
    action: {
      kind: 'app',
      url: options.chatNotifyUrl,
      action: 'send-message',
      args: { text: 'New book: {{Title}}' },
      account,
    },
  });
  return { id: rule.id, created: true };
}
