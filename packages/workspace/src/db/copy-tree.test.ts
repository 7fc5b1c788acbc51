import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { copyTree } from './copy-tree.js';

const root = await mkdtemp(join(tmpdir(), 'weft-copy-tree-'));
afterAll(() => rm(root, { recursive: true, force: true }));

async function listing(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    files[relative(dir, path)] = entry.isDirectory() ? '(folder)' : await readFile(path, 'latin1');
  }
  return files;
}

it('copies every file and folder (empty ones too) with its bytes, into a folder made or already there', async () => {
  const from = join(root, 'cluster');
  await mkdir(join(from, 'base/1'), { recursive: true });
  await mkdir(join(from, 'pg_tblspc'));
  await writeFile(join(from, 'PG_VERSION'), '17\n');
  await writeFile(join(from, 'base/1/1259'), Buffer.from([0, 1, 2, 255, 254]));
  await writeFile(join(from, 'base/1/pg_filenode.map'), 'x'.repeat(100_000));

  await copyTree(from, join(root, 'new'));
  expect(await listing(join(root, 'new'))).toEqual(await listing(from));

  await mkdir(join(root, 'empty'));
  await copyTree(from, join(root, 'empty'));
  expect(await listing(join(root, 'empty'))).toEqual(await listing(from));
});
