// The shared work of `weft types` and `weft-types` against a real local workspace: where the file
// lands, what is said, the exit code, and that the token is never repeated.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { useLocalWorkspace } from '../../test/support/workspace.js';
import { createWorkspaceClient } from '../client.js';
import { runTypesCommand, type TypesCommandOptions } from './run-types-command.js';

const local = useLocalWorkspace({ webhooks: false });
const folder = mkdtempSync(join(tmpdir(), 'weft-run-types-'));

beforeAll(async () => {
  const client = createWorkspaceClient({ url: local.url, token: local.token, rateLimit: false });
  await client.schema.createType({ name: 'Crm/Lead', fields: [{ name: 'Crm/Score', type: 'svc/int' }] });
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** The command with the admin token in WEFT_TOKEN and `folder` as cwd, unless told otherwise. */
const run = (options: Partial<TypesCommandOptions> & { out: string }) =>
  runTypesCommand({ url: local.url, env: { WEFT_TOKEN: local.token }, cwd: folder, ...options });

describe('runTypesCommand', () => {
  test('writes a relative --out inside cwd, under the given interface name, and counts the types', async () => {
    const result = await run({
      out: 'crm.ts',
      name: 'Crm',
      tokenEnv: 'CRM_TOKEN',
      env: { CRM_TOKEN: local.token },
    });
    const file = join(folder, 'crm.ts');
    const source = readFileSync(file, 'utf8');
    const types = source.split('\n').filter((line) => /^ {2}'/.test(line));
    expect(types.length).toBeGreaterThan(1);
    expect(types.some((line) => line.startsWith("  'Crm/Lead': {"))).toBe(true);
    expect(source).toMatch(/export interface Crm \{/);
    expect(result).toEqual({
      exitCode: 0,
      message: `wrote ${types.length} types to ${file}`,
      file,
      count: types.length,
    });
    expect(source).not.toContain(local.token);
  });

  test('an absolute --out is used as it is; the defaults are WEFT_TOKEN and Workspace', async () => {
    const file = join(folder, 'absolute.ts');
    const result = await run({ out: file, cwd: '/nonexistent' });
    expect(result.exitCode).toBe(0);
    expect(result.file).toBe(file);
    expect(readFileSync(file, 'utf8')).toMatch(/export interface Workspace \{/);
  });

  test('without the token in the environment: exit 2, naming the variable, nothing written', async () => {
    const result = await run({ out: 'none.ts', tokenEnv: 'CRM_TOKEN' });
    expect(result).toEqual({ exitCode: 2, message: 'set CRM_TOKEN to an API token of the workspace' });
    expect(existsSync(join(folder, 'none.ts'))).toBe(false);
  });

  test('a refused token or a bad interface name: exit 1, and the token is not repeated', async () => {
    const wrong = await run({ out: 'wrong.ts', env: { WEFT_TOKEN: 'not-a-valid-token-123' } });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.message.length).toBeGreaterThan(0);
    expect(wrong.message).not.toContain('not-a-valid-token-123');
    expect(existsSync(join(folder, 'wrong.ts'))).toBe(false);

    const badName = await run({ out: 'bad.ts', name: 'not valid' });
    expect(badName).toEqual({ exitCode: 1, message: "invalid interface name 'not valid'" });
    expect(badName.message).not.toContain(local.token);
  });
});
