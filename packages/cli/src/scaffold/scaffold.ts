import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../io.js';
import { CLI_VERSION } from '../version.js';
import { appPackageJson } from './package-json.js';
import { findTarballs } from './tarballs.js';

export const TEMPLATES = ['integration', 'actions'] as const;
export type TemplateName = (typeof TEMPLATES)[number];

export interface ScaffoldOptions {
  /** The new app's folder (absolute, or relative to the current folder); it must be absent or empty. */
  dir: string;
  /** Default `integration`. */
  template?: TemplateName;
  /** The package name; default the folder's name. */
  name?: string;
  /** A folder of `pnpm pack` tarballs to depend on instead of the registry's versions. */
  from?: string;
  /** The weft version to depend on; default this CLI's. */
  version?: string;
}

export interface ScaffoldResult {
  dir: string;
  name: string;
  template: TemplateName;
  /** Files written, relative to `dir`, sorted. */
  files: string[];
}

/** Where the templates live: `templates/` beside `src/` and `dist/`. */
const TEMPLATE_ROOT = fileURLToPath(new URL('../../templates/', import.meta.url));

// npm drops .gitignore files from packages: templates keep them as _gitignore.
const RENAMED: Record<string, string> = { _gitignore: '.gitignore', _dockerignore: '.dockerignore' };
// Files whose {{name}} is replaced.
const RENDERED = new Set(['README.md', 'Dockerfile']);

/** Writes a new app from a template: what `weft init` does. */
export function scaffoldApp(options: ScaffoldOptions): ScaffoldResult {
  const template = options.template ?? 'integration';
  if (!TEMPLATES.includes(template)) {
    throw new UsageError(`unknown template "${template}"; choose ${TEMPLATES.join(' or ')}`);
  }
  const dir = resolve(options.dir);
  if (existsSync(dir) && (!statSync(dir).isDirectory() || readdirSync(dir).length > 0)) {
    throw new UsageError(`${dir} exists and is not an empty folder`);
  }
  const name = options.name ?? packageName(basename(dir));
  if (!/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(name)) {
    throw new UsageError(`"${name}" is not a valid npm package name; pass --name`);
  }
  const version = options.version ?? CLI_VERSION;
  const tarballs = options.from === undefined ? undefined : findTarballs(resolve(options.from), version);

  const source = join(TEMPLATE_ROOT, template);
  mkdirSync(dir, { recursive: true });
  cpSync(source, dir, {
    recursive: true,
    filter: (path) => !/(^|[\\/])node_modules([\\/]|$)/.test(relative(source, path)),
  });
  for (const [from, to] of Object.entries(RENAMED)) {
    const path = join(dir, from);
    if (existsSync(path)) renameSync(path, join(dir, to));
  }
  for (const file of RENDERED) {
    const path = join(dir, file);
    if (existsSync(path)) writeFileSync(path, readFileSync(path, 'utf8').replaceAll('{{name}}', name));
  }
  const pkg = appPackageJson({ name, template, version, tarballs });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(join(dir, 'account.json'), `${JSON.stringify(ACCOUNTS[template], null, 2)}\n`);
  return { dir, name, template, files: listFiles(dir) };
}

/** The account `npm run check` hands to the kit. */
const ACCOUNTS: Record<TemplateName, Record<string, string>> = {
  integration: { token: 'demo-token' },
  actions: { webhookUrl: 'https://hooks.example.com/services/replace-me' },
};

function packageName(folder: string): string {
  return folder
    .toLowerCase()
    .replace(/[^a-z0-9-._~]+/g, '-')
    .replace(/^[-._]+|-+$/g, '');
}

function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, path));
    else out.push(path);
  }
  return out.sort();
}
