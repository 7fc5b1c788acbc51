import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, appsWithDockerfile } from '../docker-check.js';
import { parseDockerfile } from './dockerfile.js';
import { contextFiles, parseDockerignore } from './dockerignore.js';

describe('docker-check: the apps’ Dockerfiles', () => {
  it('exist for every app under apps/', () => {
    const apps = appsWithDockerfile();
    expect(apps).toEqual(expect.arrayContaining(['bookshelf', 'calendar-feed', 'chat-notify', 'dispatch']));
    const all = readdirApps();
    expect(apps).toEqual(all);
  });

  it.each(appsWithDockerfile())('%s: Node 20, installs its own package only, runs node as PID 1', (app) => {
    const steps = parseDockerfile(readFileSync(join(ROOT, 'apps', app, 'Dockerfile'), 'utf8'));
    const name = JSON.parse(readFileSync(join(ROOT, 'apps', app, 'package.json'), 'utf8')).name;
    expect(steps[0]).toEqual({ kind: 'from', image: 'node:20-slim' });
    const runs = steps.filter((s) => s.kind === 'run').map((s) => s.command);
    expect(runs).toEqual([`npx -y pnpm@10.34.8 install --frozen-lockfile --prod --filter "${name}..."`]);
    expect(steps).toContainEqual({ kind: 'workdir', path: `/repo/apps/${app}` });
    expect(steps).toContainEqual({ kind: 'expose', port: 8080 });
    expect(steps.at(-1)).toEqual({ kind: 'cmd', argv: ['node', '--import', 'tsx', 'src/main.ts'] });
  });
});

describe('docker-check: Dockerfile subset', () => {
  it('parses continuations, comments, ENV forms and exec-form CMD', () => {
    const steps = parseDockerfile(
      [
        '# comment',
        'FROM node:20-slim',
        'WORKDIR /srv',
        'COPY . .',
        'RUN echo one \\',
        '  && echo two',
        'ENV A=1 B="two words" C=',
        'ENV LEGACY some value',
        'EXPOSE 8080/tcp',
        'USER node',
        'CMD ["node", "main.js"]',
      ].join('\n'),
    );
    expect(steps).toEqual([
      { kind: 'from', image: 'node:20-slim' },
      { kind: 'workdir', path: '/srv' },
      { kind: 'copy', src: '.', dest: '.' },
      { kind: 'run', command: 'echo one && echo two' },
      { kind: 'env', vars: { A: '1', B: 'two words', C: '' } },
      { kind: 'env', vars: { LEGACY: 'some value' } },
      { kind: 'expose', port: 8080 },
      { kind: 'user', user: 'node' },
      { kind: 'cmd', argv: ['node', 'main.js'] },
    ]);
  });

  it.each([
    ['FROM node:20 AS build\nCMD ["x"]', /one image/],
    ['FROM node:20\nADD x y\nCMD ["x"]', /ADD is not supported/],
    ['FROM node:20\nCMD node main.js', /exec form/],
    ['FROM node:20\nWORKDIR app\nCMD ["x"]', /must be absolute/],
    ['FROM node:20\nCOPY --chown=node . .\nCMD ["x"]', /without flags/],
    ['FROM node:20\nRUN ["echo"]\nCMD ["x"]', /shell form/],
    ['FROM node:20', /exactly one CMD/],
    ['WORKDIR /x\nCMD ["x"]', /first instruction must be FROM/],
  ])('refuses %j', (text, message) => {
    expect(() => parseDockerfile(text)).toThrow(message);
  });
});

describe('docker-check: build context', () => {
  it('leaves out what .dockerignore excludes, at any depth', () => {
    const root = mkdtempSync(join(tmpdir(), 'weft-context-'));
    try {
      for (const file of [
        'a.ts',
        'x/node_modules/m.js',
        'node_modules/n.js',
        'x/y/debug.log',
        '.git/HEAD',
        'x/z.ts',
      ]) {
        mkdirSync(join(root, file, '..'), { recursive: true });
        writeFileSync(join(root, file), '');
      }
      const ignore = parseDockerignore('.git\n**/node_modules\n**/*.log\n');
      expect(contextFiles(root, ignore)).toEqual(['a.ts', 'x/z.ts']);
      // The repository's own .dockerignore leaves out the installed packages.
      const repo = parseDockerignore(readFileSync(join(ROOT, '.dockerignore'), 'utf8'));
      expect(repo('node_modules')).toBe(true);
      expect(repo('apps/bookshelf/node_modules')).toBe(true);
      expect(repo('.git')).toBe(true);
      expect(repo('apps/bookshelf/src/app.ts')).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('refuses patterns it cannot honour exactly', () => {
    expect(() => parseDockerignore('!keep.txt')).toThrow(/not supported/);
    expect(() => parseDockerignore('src/*/tmp')).toThrow(/not supported/);
  });
});

function readdirApps(): string[] {
  return readdirSync(join(ROOT, 'apps'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(ROOT, 'apps', d.name, 'package.json')))
    .map((d) => d.name)
    .sort();
}
