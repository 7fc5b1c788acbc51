import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { keyFile } from '../src/key-file.js';

const root = mkdtempSync(join(tmpdir(), 'weft-key-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('makes a key once, in a folder it makes, readable by its owner only; later calls read it', () => {
  const dir = join(root, 'data', 'nested');
  const key = keyFile(dir, 'a.key');
  expect(key).toMatch(/^[\w-]{43}$/);
  expect(statSync(join(dir, 'a.key')).mode & 0o777).toBe(0o600);
  expect(keyFile(dir, 'a.key')).toBe(key);
  expect(keyFile(dir, 'b.key')).not.toBe(key);
});

it('reads a key file that is there as it is, without its trailing newline', () => {
  writeFileSync(join(root, 'given.key'), 'set-by-hand\n');
  expect(keyFile(root, 'given.key')).toBe('set-by-hand');
  expect(readFileSync(join(root, 'given.key'), 'utf8')).toBe('set-by-hand\n');
});
