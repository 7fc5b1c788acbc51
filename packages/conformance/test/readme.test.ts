import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS, CHECKS } from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** Table rows of the Checks section: id -> the cells after it. */
const rows = new Map(
  [...readme.matchAll(/^\| `([a-z]+\.[a-z0-9.-]+)`\s*\|(.*)$/gm)].map((m) => [
    m[1]!,
    m[2]!.split(/(?<!\\)\|/).map((cell) => cell.trim()),
  ]),
);

describe('README', () => {
  it.each(CHECK_IDS)('documents %s with its status rule', (id) => {
    const cells = rows.get(id);
    expect(cells, `no table row for ${id}`).toBeDefined();
    // The rule column says when the check fails and when it only warns.
    expect(cells?.[0]).toMatch(/\*\*(fail|warn)\*\*/);
    // And why: what the real service does.
    expect(cells?.[1], `no reason for ${id}`).not.toBe('');
  });

  it('documents no id the kit does not have', () => {
    for (const id of rows.keys()) expect(Object.keys(CHECKS)).toContain(id);
  });
});
