// The whole way a new user goes, outside this workspace: pack the packages, then type the
// commands of docs/first-app.md in order in a temporary folder (scaffold, install from the
// tarballs with npm, test, record, serve, `weft check`, `weft dev` and its page), and type-check. Slow (npm downloads the third-party packages), so it runs
// in CI (CI=true) or with WEFT_E2E=1, and is skipped with a printed reason otherwise. Without
// the npm registry it fails: the point is that a fresh install works.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIsFresh } from '../../../scripts/checkout-entry.mjs';
import { type Pack, packAll } from '../scripts/pack-all.js';
import { exec } from './support/processes.js';
import { type Running, type TutorialRun, tutorialCommands, tutorialRunner } from './support/tutorial.js';

const enabled = process.env.CI === 'true' || process.env.WEFT_E2E === '1';
if (!enabled) {
  console.log('outside-workspace e2e skipped: it runs with CI=true or WEFT_E2E=1 (npm registry needed)');
}

// `weft init` runs through the checkout's bin, as the doc shows; the packed CLI then runs from the
// app's node_modules (weft check, weft dev).
const ROOT = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const dir = mkdtempSync(join(tmpdir(), 'weft-e2e-'));
const running: TutorialRun[] = [];

afterAll(async () => {
  for (const tutorial of running) await tutorial.stopAll();
  rmSync(dir, { recursive: true, force: true });
  // Stopping the servers and removing an npm-installed tree takes seconds on a loaded machine.
}, 120_000);

describe.runIf(enabled)('weft outside the workspace', () => {
  it('packs, scaffolds, installs with npm, type-checks, tests and passes weft check', async () => {
    const timings: Record<string, number> = {};
    const time = async <T>(step: string, work: () => Promise<T> | T): Promise<T> => {
      const started = Date.now();
      try {
        return await work();
      } finally {
        timings[step] = Date.now() - started;
      }
    };
    const must = (step: string, result: { code: number; stdout: string; stderr: string }) => {
      expect(result.code, `${step} failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
    };

    const steps: string[] = [];
    // The build `pnpm test` made first is packed as it is (a second build took a minute of CPU);
    // on a checkout without a fresh build, packAll builds.
    const fresh = buildIsFresh();
    const packs: Pack[] = await time('pack', () =>
      packAll((step) => steps.push(step), { reuseFreshBuild: true }),
    );
    // `pnpm packs` says what it is doing: the build (or its reuse) first, then each package.
    expect(steps[0]).toMatch(fresh ? /^reusing the build/ : /^building/);
    expect(buildIsFresh()).toBe(true);
    expect(steps.slice(1)).toEqual(
      packs.map((_, i) => expect.stringMatching(new RegExp(`\\(${i + 1}/${packs.length}\\)$`))),
    );
    // Every package packs; the app below needs these four.
    expect(packs.map((p) => p.file.split(/[\\/]/).at(-1))).toEqual(
      expect.arrayContaining([
        'weft-cli-0.1.0.tgz',
        'weft-conformance-0.1.0.tgz',
        'weft-core-0.1.0.tgz',
        'weft-date-range-0.1.0.tgz',
      ]),
    );
    const packsDir = join(packs[0]!.file, '..');

    // docs/first-app.md, command by command, as a reader types them in an empty folder: the
    // checkout variant of step 1 (weft is not on the registry yet), recording, the three
    // terminals of step 5, then `weft dev` and its page (step 6).
    const doc = readFileSync(new URL('../../../docs/first-app.md', import.meta.url), 'utf8');
    const commands = tutorialCommands(doc, (block) => block.includes('npx @weft/cli init'));
    expect(commands.map((c) => c.line)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/weft\.js init tasks-app --from/),
        'npm install',
        'npm test',
        'npm run record',
        'npm run tracker',
        'npm start',
        'npm run check',
        'npx weft dev src/main.ts --account account.json',
      ]),
    );
    const tutorial = tutorialRunner({
      cwd: dir,
      rewrite: (line) => line.replaceAll('~/weft', ROOT),
      longRunning: [
        { matches: /^npm run tracker$/, ready: /listening on http/, timeoutMs: 60_000 },
        { matches: /^npm start$/, ready: /listening on http/, timeoutMs: 60_000 },
        { matches: /weft dev /, ready: /^Ready\./m, timeoutMs: 240_000 },
      ],
    });
    running.push(tutorial);
    let dev: Running | undefined;
    for (const command of commands) {
      const result = await time(command.line, () => tutorial.run(command));
      if ('code' in result) {
        must(`"${command.step}": ${command.line}`, result);
        if (command.line === 'npm run check') expect(result.stdout).toMatch(/0 failed/);
      } else if (/weft dev /.test(command.line)) {
        dev = result;
      }
    }
    const app = join(dir, 'tasks-app');
    expect(tutorial.cwd()).toBe(app);
    const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
    expect(pkg.dependencies['@weft/core']).toMatch(/^file:.*weft-core-0\.1\.0\.tgz$/);
    expect(pkg.overrides['@weft/core']).toBe(pkg.dependencies['@weft/core']);
    // What npm installed is the packed code, not this workspace's sources.
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/@weft/core/package.json'), 'utf8'));
    expect(installed.exports['.'].default).toBe('./dist/index.js');

    // weft dev synced the tracker's tasks into the workspace, and its page answers.
    const output = dev!.output();
    const workspaceUrl = /Workspace listening on (http:\/\/[\w.:-]+)/.exec(output)?.[1];
    const token = /Admin token: (\S+)/.exec(output)?.[1];
    expect(workspaceUrl, output).toBeDefined();
    expect(token, output).toBeDefined();
    const query = await fetch(`${workspaceUrl}/api/commands`, {
      method: 'POST',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          command: 'svc.entity/query',
          args: { query: { 'q/from': 'tasks/task', 'q/select': ['svc/id'], 'q/limit': 100 } },
        },
      ]),
    });
    const [answer] = (await query.json()) as [{ success: boolean; result: unknown[] }];
    expect(answer.success, JSON.stringify(answer)).toBe(true);
    expect(answer.result).toHaveLength(24);
    // The Ready line names the page and how to sign in to it.
    const pageUrl = /^Ready\. The page: (\S+) \(sign in with the admin token printed above\)/m.exec(
      output,
    )?.[1];
    expect(pageUrl, output).toBe(`${workspaceUrl}/ui`);
    const page = await fetch(pageUrl!);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<form[^>]*action="\/ui\/login"/);

    must('npm run typecheck', await time('typecheck', () => exec(NPM, ['run', 'typecheck'], { cwd: app })));

    // The packed CLI scaffolds too (its templates ship in the tarball).
    const packedInit = await exec(
      join(app, 'node_modules/.bin/weft'),
      ['init', '../notify-app', '--template', 'actions', '--from', packsDir],
      { cwd: app },
    );
    must('packed weft init', packedInit);
    expect(readFileSync(join(dir, 'notify-app/src/app.ts'), 'utf8')).toContain("'send-message'");

    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
    console.log(
      `outside-workspace: ${Object.entries(timings)
        .map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`)
        .join(
          ', ',
        )}; tarballs ${packs.map((p) => `${p.file.split(/[\\/]/).at(-1)} ${kb(p.bytes)}`).join(', ')}`,
    );
  }, 600_000);
});
