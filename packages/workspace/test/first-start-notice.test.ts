// The first start on a machine (or after a change of the tables) makes the database template,
// which takes seconds: it says so, once. A start that finds the template says nothing.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAKING_TEMPLATE } from '../src/db/pglite-template.js';
import { openWorkspace } from '../src/workspace.js';

describe('a start that makes the database template', () => {
  it('says so once, and a later start says nothing', async () => {
    // A machine that never ran weft: a temporary folder of its own holds the template cache.
    const fresh = mkdtempSync(join(tmpdir(), 'weft-first-start-'));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = fresh;
    try {
      const start = async () => {
        const said: string[] = [];
        const ws = await openWorkspace({
          database: { kind: 'memory' },
          webhooks: false,
          log: (message) => said.push(message),
        });
        await ws.execute([{ command: 'svc.schema/query' }]);
        await ws.close();
        return said;
      };
      expect(await start()).toEqual([MAKING_TEMPLATE]);
      const cache = readdirSync(fresh).find((name) => name.startsWith('weft-pglite-')) as string;
      // The template and its prepared copy (a spare may be under way beside them).
      const made = readdirSync(join(fresh, cache)).filter((name) => !name.includes('.spare'));
      expect(made).toHaveLength(2);
      expect(await start()).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      rmSync(fresh, { recursive: true, force: true });
    }
  }, 120_000);
});
