// docs/first-app.md shows the integration template's code: every `<!-- file: x -->` block must be
// that file, word for word. The files themselves are type-checked by the repo's tsc, pass the kit
// in templates/integration/test (run by this package's vitest project), and are installed and run
// outside the workspace by outside-workspace.test.ts. The commands it shows must exist.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/index.js';
import { run } from '../src/program.js';
import { appPackageJson } from '../src/scaffold/package-json.js';
import { capture } from './support/capture.js';

const doc = readFileSync(new URL('../../../docs/first-app.md', import.meta.url), 'utf8');
const template = (file: string) =>
  readFileSync(new URL(`../templates/integration/${file}`, import.meta.url), 'utf8');

describe('docs/first-app.md', () => {
  const blocks = [...doc.matchAll(/<!-- file: (\S+) -->\n```ts\n([\s\S]*?)\n```/g)];

  it('shows the template files as they are', () => {
    expect(blocks.map((b) => b[1])).toEqual([
      'src/app.ts',
      'src/tracker.ts',
      'test/app.test.ts',
      'test/drift.test.ts',
      'src/main.ts',
    ]);
    for (const [, file, code] of blocks) expect(`${code}\n`, file).toBe(template(file!));
  });

  it('uses only scripts the scaffolded package.json has', () => {
    const scripts = appPackageJson({ name: 'x', template: 'integration', version: '0.1.0' })
      .scripts as Record<string, string>;
    const used = [...doc.matchAll(/npm (?:run (\w+)|(start|test))\b/g)].map((m) => m[1] ?? m[2]);
    expect(used.length).toBeGreaterThan(4);
    for (const name of used) expect(Object.keys(scripts), name).toContain(name);
    expect(scripts.check).toContain('weft check');
  });

  it('uses only weft commands and init options that exist', async () => {
    const commands = [...doc.matchAll(/weft(?:\.js)? (\w[\w-]*)/g)].map((m) => m[1]!);
    const names = COMMANDS.map((c) => c.name);
    for (const name of commands.filter((c) => !['checkout', 'repository', 'packages'].includes(c))) {
      expect(names, name).toContain(name);
    }
    const help = capture();
    await run(['init', '--help'], help);
    for (const option of ['--template', '--from', '--install']) {
      expect(doc).toContain(option);
      expect(help.out()).toContain(option);
    }
  });
});
