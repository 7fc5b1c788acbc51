import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS, CHECKS } from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it.each(CHECK_IDS)('documents %s', (id) => {
    expect(readme).toContain(`\`${id}\``);
  });

  it('documents no id the kit does not have', () => {
    const documented = [...readme.matchAll(/\| `([a-z]+\.[a-z0-9.-]+)` \|/g)].map((m) => m[1]!);
    for (const id of documented) expect(Object.keys(CHECKS)).toContain(id);
  });
});
