// Automations' app accounts are sealed at rest with the workspace's key: a new automation's
// account never reaches the `action` column, a row stored before sealing existed is sealed the
// first time it is read, and only the run path (getAutomation) opens the account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../host/secret-box.js';
import { openWorkspace, type Workspace } from '../workspace.js';
import { publicAutomation } from './definition.js';
import { createAutomation, getAutomation, listAutomations } from './store.js';

const box = new SecretBox('automation-accounts-key');
const SECRET = 'https://chat.example/hooks/T000/B000/very-secret-path';
let ws: Workspace;

beforeAll(async () => {
  ws = await openWorkspace({ webhooks: false, box, log: () => {} });
});
afterAll(async () => {
  await ws?.close();
});

const action = (account: Record<string, unknown>) => ({
  kind: 'app',
  url: 'http://127.0.0.1:9/',
  action: 'send-message',
  args: { text: '{{Name}}' },
  account,
});

describe('automation accounts', () => {
  it('are sealed on write and opened only to run', async () => {
    const created = await createAutomation(ws.driver, {
      name: 'Notify',
      trigger: 'created',
      type: 'chat/message',
      action: action({ webhookUrl: SECRET }),
    });
    const { rows } = await ws.driver.query<{ action: unknown; account_enc: string }>(
      `SELECT action, account_enc FROM weft_automations WHERE id = $1`,
      [created.id],
    );
    expect(JSON.stringify(rows)).not.toContain('very-secret-path');
    expect(rows[0]?.action).toMatchObject({ kind: 'app', accountFields: ['webhookUrl'] });
    expect(box.open(rows[0]?.account_enc as string)).toEqual({ webhookUrl: SECRET });
    expect(() => new SecretBox('another-key').open(rows[0]?.account_enc as string)).toThrow(
      /cannot be decrypted/,
    );

    const listed = (await listAutomations(ws.driver)).map(publicAutomation);
    expect(JSON.stringify(listed)).not.toContain('very-secret-path');
    expect(listed[0]?.action).toMatchObject({ accountFields: ['webhookUrl'] });
    expect((await getAutomation(ws.driver, created.id))?.action).toMatchObject({
      account: { webhookUrl: SECRET },
    });
  });

  it('seals a row stored in the clear the first time it is read', async () => {
    const id = '5f0e3f5e-8d7a-4a43-9b1e-2f6a1c0d9e11';
    await ws.driver.query(
      `INSERT INTO weft_automations (id, name, trigger, type_name, action) VALUES ($1, 'Old', 'created', 'chat/message', $2)`,
      [id, JSON.stringify(action({ webhookUrl: SECRET, channel: 'general' }))],
    );
    const old = (await listAutomations(ws.driver)).find((a) => a.id === id);
    // (jsonb keeps its own key order)
    const fields = (publicAutomation(old!).action as { accountFields: string[] }).accountFields;
    expect([...fields].sort()).toEqual(['channel', 'webhookUrl']);
    const { rows } = await ws.driver.query<{ action: unknown; account_enc: string | null }>(
      `SELECT action, account_enc FROM weft_automations WHERE id = $1`,
      [id],
    );
    expect(JSON.stringify(rows[0]?.action)).not.toContain('very-secret-path');
    expect(box.open(rows[0]?.account_enc as string)).toEqual({ webhookUrl: SECRET, channel: 'general' });
    expect((await getAutomation(ws.driver, id))?.action).toMatchObject({
      account: { webhookUrl: SECRET, channel: 'general' },
    });
  });
});
