import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';
import { type Durations, slowestFirst } from './order.js';

// vitest's own sequencer groups the files by project (alphabetically) and orders them by the
// durations it cached locally, which a fresh clone (CI) does not have: there the long files of
// the last projects started last. This one orders every file longest first from the committed
// table (scripts/test-order/durations.json, refreshed by `pnpm test:durations`).

const table = new URL('./durations.json', import.meta.url);

export class SlowestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = JSON.parse(readFileSync(table, 'utf8')) as Durations;
    const root = this.ctx.config.root;
    const byKey = new Map<string, TestSpecification[]>();
    for (const spec of files) {
      const key = `${spec.project.name}:${relative(root, spec.moduleId).replaceAll('\\', '/')}`;
      byKey.set(key, [...(byKey.get(key) ?? []), spec]);
    }
    return slowestFirst([...byKey.keys()], durations).flatMap((key) => byKey.get(key) ?? []);
  }
}
