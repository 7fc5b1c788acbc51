// `weft init [dir]`: a new standalone app from a template.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Option } from 'commander';
import yoctoSpinner from 'yocto-spinner';
import type { WeftCommand } from '../command.js';
import { type CliIo, EXIT, EXIT_HELP } from '../io.js';
import { scaffoldApp, TEMPLATES, type TemplateName } from '../scaffold/scaffold.js';

interface InitOptions {
  template: TemplateName;
  from?: string;
  name?: string;
  install?: boolean;
}

export const initCommand: WeftCommand = {
  name: 'init',
  register(program, io, done) {
    program
      .command('init')
      .summary('scaffold a new app')
      .description(
        'Writes a standalone app: package.json, src/app.ts, src/main.ts, a vitest test that runs the conformance kit, a Dockerfile and a README.',
      )
      .argument('[dir]', 'the new app folder (absent or empty)', '.')
      .addOption(
        new Option('-t, --template <name>', 'integration (sync a tracker: types, filters, delta) or actions')
          .choices(TEMPLATES)
          .default('integration'),
      )
      .option(
        '--from <dir>',
        'depend on the weft tarballs in this folder (from `pnpm packs`) instead of the registry',
      )
      .option('--name <name>', 'the package name (default: the folder name)')
      .option('--install', 'run npm install in the new app')
      .addHelpText(
        'after',
        `
Examples:
  weft init my-app
  weft init my-actions --template actions
  weft init my-app --from ../weft/dist/packs --install

Then: cd my-app && npm install && npm test

${EXIT_HELP}`,
      )
      .action(async (dir: string, options: InitOptions) => {
        const result = scaffoldApp({
          dir: resolve(io.cwd, dir),
          template: options.template,
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.from === undefined ? {} : { from: resolve(io.cwd, options.from) }),
        });
        io.stdout.write(
          `Created ${result.name} (${result.template}) in ${result.dir}:\n${result.files.map((f) => `  ${f}`).join('\n')}\n`,
        );
        if (options.install && !(await npmInstall(result.dir, io))) {
          done(EXIT.findings);
          return;
        }
        const cd = resolve(io.cwd) === result.dir ? '' : `cd ${dir} && `;
        io.stdout.write(`\nNext: ${cd}${options.install ? '' : 'npm install && '}npm test\n`);
        done(EXIT.ok);
      });
  },
};

/** `npm install` in `dir` with a spinner on a terminal; its output is shown only when it fails. */
async function npmInstall(dir: string, io: CliIo): Promise<boolean> {
  const spinner = yoctoSpinner({
    text: 'npm install',
    stream: io.stderr as NodeJS.WriteStream,
  }).start();
  const output: Buffer[] = [];
  const code = await new Promise<number>((resolveCode) => {
    const child = spawn(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      ['install', '--no-audit', '--no-fund'],
      {
        cwd: dir,
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: process.platform === 'win32',
      },
    );
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', (error) => {
      output.push(Buffer.from(String(error)));
      resolveCode(127);
    });
    child.on('close', (status) => resolveCode(status ?? 1));
  });
  if (code === 0) {
    spinner.success('npm install');
    return true;
  }
  spinner.error(`npm install failed (exit ${code})`);
  io.stderr.write(Buffer.concat(output).toString('utf8'));
  return false;
}
