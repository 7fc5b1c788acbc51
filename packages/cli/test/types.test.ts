// `weft types` against a real local workspace: the generated file names the workspace's types and
// fields, the token comes only from the environment, and the file lands in the user's folder.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkspaceClient } from '@weft/client';
import { type RunningWorkspace, startWorkspace } from '@weft/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/program.js';
import { capture } from './support/capture.js';

const token = 'types-test-admin-token';
let ws: RunningWorkspace;
const folder = mkdtempSync(join(tmpdir(), 'weft-types-'));

beforeAll(async () => {
  ws = await startWorkspace({ rateLimit: 0, adminToken: token, webhooks: false, log: () => {} });
  const client = createWorkspaceClient({ url: ws.url, token });
  await client.schema.createType({
    name: 'Tracker/Task',
    fields: [{ name: 'Tracker/Estimate', type: 'svc/int' }],
  });
}, 60_000);
afterAll(async () => {
  await ws?.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('weft types', () => {
  it("writes the workspace's types and fields into the user's folder", async () => {
    const io = capture('/');
    io.env = { WEFT_TOKEN: token, INIT_CWD: folder };
    expect(await run(['types', ws.url, '--out', 'tracker.ts', '--name', 'Tracker'], io)).toBe(0);
    const source = readFileSync(join(folder, 'tracker.ts'), 'utf8');
    expect(source).toContain('Tracker/Task');
    expect(source).toContain('Tracker/Estimate');
    expect(source).toMatch(/interface Tracker\b/);
    expect(io.out()).toMatch(/wrote \d+ types to .*tracker\.ts/);
    expect(io.out() + io.err()).not.toContain(token);
  });

  it('refuses to run without a token in the environment (exit 2), and a wrong token is a finding (exit 1)', async () => {
    const none = capture(folder);
    expect(await run(['types', ws.url], none)).toBe(2);
    expect(none.err()).toMatch(/set WEFT_TOKEN/);
    const wrong = capture(folder);
    wrong.env = { WEFT_TOKEN: 'not-a-token' };
    expect(await run(['types', ws.url], wrong)).toBe(1);
    expect(wrong.err()).not.toContain('not-a-token');
  });
});
