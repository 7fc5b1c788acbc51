import type { Check, ConformanceReport, TypeSyncReport } from './types.js';

export interface FormatOptions {
  /** ANSI colours (default false). */
  color?: boolean;
}

const LABELS: Record<Check['status'], string> = { pass: 'PASS', fail: 'FAIL', warn: 'WARN', skip: 'SKIP' };
const COLORS: Record<Check['status'], string> = { pass: '32', fail: '31', warn: '33', skip: '90' };

function paint(color: boolean, code: string, text: string): string {
  return color ? `\u001b[${code}m${text}\u001b[0m` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

function formatSync(typeId: string, s: TypeSyncReport): string {
  const parts = [`${s.count.toLocaleString('en-US')} rows in ${s.pages} page${s.pages === 1 ? '' : 's'}`];
  if (s.synchronizationType) parts[0] += ` (${s.synchronizationType})`;
  if (s.delta) {
    parts.push(
      `after delta ${s.delta.count.toLocaleString('en-US')} rows (${s.delta.set} set, ${s.delta.removed} removed${
        s.delta.synchronizationType ? `, ${s.delta.synchronizationType}` : ''
      })`,
    );
  }
  const coverage = Object.entries(s.relationCoverage).map(
    ([f, c]) => `${f} ${c.resolved.toLocaleString('en-US')}/${c.total.toLocaleString('en-US')}`,
  );
  if (coverage.length) parts.push(`relations ${coverage.join(', ')}`);
  const sample = s.sample[0] ? `\n      sample: ${oneLine(JSON.stringify(s.sample[0])).slice(0, 160)}` : '';
  return `  ${typeId}: ${parts.join('; ')}${sample}`;
}

/** The report as text: one line per check, request and response excerpts for failures, the sync summary, the counts. */
export function formatReport(report: ConformanceReport, options: FormatOptions = {}): string {
  const color = options.color ?? false;
  const lines: string[] = [`weft-conformance ${report.url} (${(report.durationMs / 1000).toFixed(2)} s)`];
  if (report.appTimeLimitMs !== undefined) {
    const ms = (n: number) => `${n.toLocaleString('en-US')} ms`;
    lines.push(
      `time limit per request ${ms(report.timeoutMs)}: longer than the app's own ${ms(report.appTimeLimitMs)}, so its 504 tryLater is seen`,
    );
  }
  let group = '';
  for (const check of report.checks) {
    if (check.group !== group) {
      group = check.group;
      lines.push('', paint(color, '1', group));
    }
    const label = paint(color, COLORS[check.status], LABELS[check.status]);
    const reason = check.reason ? ` — ${oneLine(check.reason)}` : '';
    lines.push(`  ${label} ${check.id}: ${check.title}${reason}`);
    if (check.status === 'fail' || check.status === 'warn') {
      if (check.request) {
        const body = check.request.body ? ` ${oneLine(check.request.body)}` : '';
        lines.push(
          paint(color, '90', `       request:  ${check.request.method} ${check.request.path}${body}`),
        );
      }
      if (check.response) {
        const status = check.response.status === undefined ? '(no answer)' : `HTTP ${check.response.status}`;
        const body = check.response.body ? ` ${oneLine(check.response.body)}` : '';
        lines.push(paint(color, '90', `       response: ${status}${body}`));
      }
    }
  }
  const types = Object.entries(report.sync);
  if (types.length) {
    lines.push('', paint(color, '1', 'sync'));
    for (const [typeId, s] of types) lines.push(formatSync(typeId, s));
  }
  if (report.typesLeftOut)
    lines.push(paint(color, '33', `  not synced (left out by --types): ${report.typesLeftOut.join(', ')}`));
  const { passed, failed, warned, skipped } = report.summary;
  const strict = report.strict ? ' (strict: warnings fail)' : '';
  const counts = `${passed} passed, ${failed} failed, ${warned} warned${skipped ? `, ${skipped} skipped` : ''}${strict}`;
  lines.push('', paint(color, report.ok ? '32;1' : '31;1', counts));
  return lines.join('\n');
}
