// The subset of the Dockerfile language the apps' Dockerfiles use, parsed into steps that both
// `docker build` (for real) and the local check (by emulation) execute. Anything outside the
// subset is an error, so a Dockerfile cannot drift from what the check can prove.

export type Step =
  | { kind: 'from'; image: string }
  | { kind: 'workdir'; path: string }
  | { kind: 'copy'; src: string; dest: string }
  | { kind: 'env'; vars: Record<string, string> }
  | { kind: 'run'; command: string }
  | { kind: 'expose'; port: number }
  | { kind: 'user'; user: string }
  | { kind: 'cmd'; argv: string[] };

export class DockerfileError extends Error {
  override readonly name = 'DockerfileError';
}

export function parseDockerfile(text: string): Step[] {
  const steps: Step[] = [];
  // Join `\` continuations; drop comments and blank lines.
  const logical: { line: number; text: string }[] = [];
  let pending: { line: number; text: string } | undefined;
  text.split(/\r?\n/).forEach((raw, index) => {
    const trimmed = raw.trim();
    if (!pending && (trimmed === '' || trimmed.startsWith('#'))) return;
    if (pending && trimmed.startsWith('#')) return;
    const continued = trimmed.endsWith('\\');
    const part = continued ? trimmed.slice(0, -1).trim() : trimmed;
    pending = pending
      ? { line: pending.line, text: `${pending.text} ${part}` }
      : { line: index + 1, text: part };
    if (!continued) {
      logical.push(pending);
      pending = undefined;
    }
  });
  if (pending) logical.push(pending);

  for (const { line, text: instruction } of logical) {
    const match = /^(\S+)\s+(.*)$/.exec(instruction);
    const fail = (why: string) => new DockerfileError(`line ${line}: ${why}: ${instruction}`);
    if (!match) throw fail('an instruction needs an argument');
    const keyword = match[1]!.toUpperCase();
    const rest = match[2]!.trim();
    switch (keyword) {
      case 'FROM':
        if (/\s/.test(rest)) throw fail('FROM takes one image (no stages, no --platform)');
        steps.push({ kind: 'from', image: rest });
        break;
      case 'WORKDIR':
        if (!rest.startsWith('/')) throw fail('WORKDIR must be absolute');
        steps.push({ kind: 'workdir', path: rest });
        break;
      case 'COPY': {
        const parts = rest.split(/\s+/);
        if (parts.length !== 2 || parts[0]!.startsWith('--'))
          throw fail('COPY takes <src> <dest> without flags');
        steps.push({ kind: 'copy', src: parts[0]!, dest: parts[1]! });
        break;
      }
      case 'ENV':
        steps.push({ kind: 'env', vars: parseEnv(rest, fail) });
        break;
      case 'RUN':
        if (rest.startsWith('[')) throw fail('RUN must use the shell form');
        steps.push({ kind: 'run', command: rest });
        break;
      case 'EXPOSE': {
        const port = Number(rest.replace(/\/tcp$/, ''));
        if (!Number.isInteger(port) || port <= 0 || port > 65_535) throw fail('EXPOSE takes one TCP port');
        steps.push({ kind: 'expose', port });
        break;
      }
      case 'USER':
        steps.push({ kind: 'user', user: rest });
        break;
      case 'CMD': {
        let argv: unknown;
        try {
          argv = JSON.parse(rest);
        } catch {
          argv = undefined;
        }
        if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string')) {
          throw fail('CMD must use the exec form, a JSON array of strings');
        }
        steps.push({ kind: 'cmd', argv: argv as string[] });
        break;
      }
      default:
        throw fail(`${keyword} is not supported by scripts/docker-check`);
    }
  }
  if (steps[0]?.kind !== 'from') throw new DockerfileError('the first instruction must be FROM');
  if (steps.filter((s) => s.kind === 'cmd').length !== 1)
    throw new DockerfileError('there must be exactly one CMD');
  return steps;
}

/** `ENV A=1 B="two words"`, or the legacy `ENV A value with spaces`. */
function parseEnv(rest: string, fail: (why: string) => Error): Record<string, string> {
  const vars: Record<string, string> = {};
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(rest)) {
    const [name, ...value] = rest.split(/\s+/);
    if (!name || value.length === 0) throw fail('ENV needs a value');
    vars[name] = value.join(' ');
    return vars;
  }
  const pair = /([A-Za-z_][A-Za-z0-9_]*)=("([^"\\]*(?:\\.[^"\\]*)*)"|(\S*))\s*/y;
  let index = 0;
  while (index < rest.length) {
    pair.lastIndex = index;
    const m = pair.exec(rest);
    if (!m) throw fail('ENV pairs are NAME=value');
    vars[m[1]!] = m[3] !== undefined ? m[3].replace(/\\(.)/g, '$1') : m[4]!;
    index = pair.lastIndex;
  }
  return vars;
}
