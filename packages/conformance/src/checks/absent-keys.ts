import { type DataRequestBody, readPage } from '@weft/sync-engine';
import { formatIssues, jsonAnswerProblem } from '../context.js';
import { isPlainObject } from '../util.js';
import { KIT_RETRY, servicePage, type SyncEnv } from './sync.js';

/**
 * `data.absent-keys`: the service may leave `pagination` and `lastSynchronizedAt` out instead of
 * sending null (and `filter` when the user set none). A first page of each type is asked that way
 * and must be an ordinary data page. `filter` stays in when a filter is required, since the
 * service then always has one to send.
 */
export async function checkAbsentKeys(env: SyncEnv, typeId: string, keepFilter: boolean): Promise<void> {
  const { ctx } = env;
  const body: DataRequestBody = { requestedType: typeId, types: env.types, account: env.account };
  if (keepFilter) body.filter = env.filter;
  const absent = keepFilter
    ? '`pagination`, `lastSynchronizedAt`'
    : '`pagination`, `lastSynchronizedAt`, `filter`';
  const { kind, exchange: ex } = await readPage(ctx.client, body, { retry: KIT_RETRY });
  if (kind === 'tryLater') {
    ctx.warn('data.absent-keys', {
      subject: typeId,
      reason: `without ${absent}: the app still asked to try later`,
      exchange: ex,
    });
    return;
  }
  let problem = jsonAnswerProblem(ex);
  if (!problem) {
    const parsed = servicePage.safeParse(ex.json);
    if (!parsed.success)
      problem = isPlainObject(ex.json) ? formatIssues(parsed.error.issues) : 'the body is not a JSON object';
  }
  ctx.expect('data.absent-keys', problem && `without ${absent}: ${problem}`, {
    subject: typeId,
    exchange: ex,
  });
}
