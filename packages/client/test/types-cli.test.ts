// weft-types against a real workspace: it writes the workspace's types, and the compiler then
// rejects a misspelled field in a query written against them (tsc is run for real).
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createWorkspaceClient } from '../src/index.js';
import { main } from '../src/types-gen/cli.js';
import { runTypesCommand } from '../src/types-gen/run-types-command.js';
import { useLocalWorkspace } from './support/workspace.js';

const local = useLocalWorkspace();
const packageDir = fileURLToPath(new URL('..', import.meta.url));
// Inside the package's node_modules so that tsc finds the same @types as the package, and neither
// the repo's type-check nor its linter ever sees these files.
const dir = join(packageDir, 'node_modules', '.cache', `types-cli-${process.pid}`);

beforeAll(async () => {
  await mkdir(dir, { recursive: true });
  const client = createWorkspaceClient({ url: local.url, token: local.token, rateLimit: false });
  await client.schema.createType({ name: 'Shop/Customer', titleField: 'Shop/Name' });
  await client.schema.createType({
    name: 'Shop/Order',
    titleField: 'Shop/Name',
    fields: [{ name: 'Shop/Total', type: 'svc/decimal' }],
  });
  await client.schema.createRelation(
    { type: 'Shop/Order', field: 'Shop/Customer' },
    { type: 'Shop/Customer', field: 'Shop/Orders', many: true },
  );
  await client.schema.createSingleSelect({
    holderType: 'Shop/Order',
    name: 'Shop/Status',
    options: ['New', 'Paid'],
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('weft-types', () => {
  test('writes the types of the workspace, and a misspelled field fails tsc', async () => {
    const out = join(dir, 'workspace-types.ts');
    const previous = process.env.WEFT_TOKEN;
    process.env.WEFT_TOKEN = local.token;
    try {
      expect(await main([local.url, '--out', out])).toBe(0);
    } finally {
      if (previous === undefined) delete process.env.WEFT_TOKEN;
      else process.env.WEFT_TOKEN = previous;
    }
    const source = await readFile(out, 'utf8');
    expect(source).toContain(
      "'Shop/Customer': { kind: 'entity'; value: { 'svc/id': string } | null; target: 'Shop/Customer' };",
    );
    expect(source).toContain("'Shop/Status_Shop/Order': {");
    expect(source).not.toContain(local.token);

    // One compile: the right query must pass, and the line with the misspelled field must fail
    // (otherwise its @ts-expect-error is unused, which is an error too).
    const clientIndex = join(packageDir, 'src', 'index.js');
    await writeFile(
      join(dir, 'queries.ts'),
      `import type { Workspace } from './workspace-types.js';
import { createWorkspaceClient, eq } from ${JSON.stringify(clientIndex)};
const client = createWorkspaceClient<Workspace>({ url: 'http://127.0.0.1:1', token: 't' });
export const right = client.query('Shop/Order').select('Name', 'Total', { Customer: ['Name'] }).where(eq('Status.enum/name', 'Paid'));
// @ts-expect-error: Totl is not a field of Shop/Order
export const wrong = client.query('Shop/Order').select('Name', 'Totl');
`,
    );
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const args = ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext'];
    const result = await promisify(execFile)(
      process.execPath,
      [tsc, ...args, '--types', 'node', join(dir, 'queries.ts')],
      { cwd: packageDir },
    ).then(
      () => ({ code: 0, stdout: '' }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );
    expect(result).toEqual({ code: 0, stdout: '' });
  });

  test('without a token it explains what to set, and never asks for the token on the command line', async () => {
    const previous = process.env.WEFT_TOKEN;
    delete process.env.WEFT_TOKEN;
    try {
      expect(await main([local.url, '--out', join(dir, 'x.ts')])).toBe(2);
    } finally {
      if (previous !== undefined) process.env.WEFT_TOKEN = previous;
    }
  });
});

describe('weft-types against a workspace that speaks fibery', () => {
  const fibery = useLocalWorkspace({ namespace: 'fibery' });

  beforeAll(async () => {
    const client = createWorkspaceClient({
      url: fibery.url,
      token: fibery.token,
      rateLimit: false,
      namespace: 'fibery',
    });
    await client.schema.createType({ name: 'Desk/Ticket', titleField: 'Desk/Name' });
  });

  test('reads the schema with --namespace fibery and names things as the client presents them', async () => {
    const env = { WEFT_TOKEN: fibery.token };
    const out = join(dir, 'fibery-types.ts');
    const written = await runTypesCommand({ url: fibery.url, out, env, cwd: dir, namespace: 'fibery' });
    expect(written.exitCode, written.message).toBe(0);
    const source = await readFile(out, 'utf8');
    expect(source).toContain('(namespace fibery)');
    expect(source).toContain("'Desk/Ticket': {");
    expect(source).toContain("'svc/id': { kind: 'primitive'; value: string");
    // WEFT_NAMESPACE is the default of --namespace
    const fromEnv = await runTypesCommand({
      url: fibery.url,
      out,
      env: { ...env, WEFT_NAMESPACE: 'fibery' },
      cwd: dir,
    });
    expect(fromEnv.exitCode, fromEnv.message).toBe(0);
    // read as svc, the fibery schema is not one the generator knows
    expect((await runTypesCommand({ url: fibery.url, out, env, cwd: dir })).exitCode).toBe(1);
    expect(await runTypesCommand({ url: fibery.url, out, env, cwd: dir, namespace: 'acme' })).toEqual({
      exitCode: 2,
      message: '--namespace must be one of svc, fibery, got "acme"',
    });
  });
});
