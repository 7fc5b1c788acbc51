import { readPage } from '@weft/sync-engine';
import { jsonAnswerProblem } from '../context.js';
import type { Exchange } from '../http.js';
import { isPlainObject, show } from '../util.js';
import { pageDigest } from './page-digest.js';
import { dataRequest, KIT_RETRY, type PhaseResult, type SyncEnv } from './sync.js';

/**
 * Resumability proof (`data.resume`): the service may ask a page again later — after a
 * `tryLater`, a restart, or from another replica — with the `nextPageConfig` it stored. So every
 * `nextPageConfig` of the full sync is sent a second time, in reverse order, and must give the
 * same rows. Other ids fail (the cursor depends on state kept in the app); the same ids with
 * other values only warn (the upstream data may have changed during the run). Only digests of
 * the first pages are kept, never the rows.
 */
export async function checkResume(env: SyncEnv, result: PhaseResult): Promise<void> {
  const { ctx } = env;
  const subject = result.typeId;
  if (result.resumable.length === 0) {
    ctx.skip('data.resume', {
      subject,
      reason:
        result.pages <= 1
          ? 'one page: no `nextPageConfig` to replay'
          : 'no page was read through a `nextPageConfig`',
    });
    return;
  }
  if (!result.complete) {
    ctx.skip('data.resume', { subject, reason: 'the full sync did not complete' });
    return;
  }
  const problems: string[] = [];
  const warnings: string[] = [];
  let shown: Exchange | undefined;
  for (const first of [...result.resumable].reverse()) {
    const where = `page ${first.page} (nextPageConfig ${show(first.config, 60)})`;
    const outcome = await readPage(
      ctx.client,
      dataRequest(env, result.typeId, first.config as Record<string, unknown>, null),
      {
        retry: KIT_RETRY,
      },
    );
    const ex = outcome.exchange;
    if (outcome.kind === 'tryLater') {
      warnings.push(`${where}: the app still asked to try later`);
      shown ??= ex;
      continue;
    }
    const problem =
      jsonAnswerProblem(ex) ??
      (isPlainObject(ex.json) && Array.isArray(ex.json.items)
        ? undefined
        : 'the answer has no `items` array');
    if (problem || !isPlainObject(ex.json) || !Array.isArray(ex.json.items)) {
      problems.push(`${where} asked again: ${problem}`);
      shown = ex;
      continue;
    }
    const again = pageDigest(first.config, ex.json.items, first.page);
    if (again.ids !== first.ids) {
      problems.push(
        `${where} asked again gave ${again.count} row(s) with other ids than the ${first.count} of the first time: the page depends on state kept in the app`,
      );
      shown = ex;
    } else if (again.rows !== first.rows) {
      warnings.push(`${where}: the same ids but other values (did the data change during the run?)`);
      shown ??= ex;
    }
  }
  const input = (reasons: string[]) => {
    const more = reasons.length > 5 ? `; and ${reasons.length - 5} more` : '';
    const out: { subject: string; reason: string; exchange?: Exchange } = {
      subject,
      reason: reasons.slice(0, 5).join('; ') + more,
    };
    if (shown) out.exchange = shown;
    return out;
  };
  if (problems.length) ctx.fail('data.resume', input(problems));
  else if (warnings.length) ctx.warn('data.resume', input(warnings));
  else
    ctx.pass('data.resume', {
      subject,
      reason: `${result.resumable.length} nextPageConfig(s) replayed in reverse order: the same rows`,
    });
}
