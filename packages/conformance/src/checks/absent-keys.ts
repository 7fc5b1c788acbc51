import { type DataRequestBody, readPage } from '@weft/sync-engine';
import { jsonAnswerProblem } from '../context.js';
import { KIT_RETRY, pageProblem, type SyncEnv } from './sync.js';

/**
 * `data.absent-keys`: the service may leave `pagination` and `lastSynchronizedAt` out instead of
 * sending null. A first page of each type is asked that way and must be an ordinary data page.
 * `filter`, `operationId` and `schema` are always sent, as the service always sends them (`filter`
 * is `{}` when the user set none).
 */
export async function checkAbsentKeys(env: SyncEnv, typeId: string): Promise<void> {
  const { ctx } = env;
  const body: DataRequestBody = {
    requestedType: typeId,
    types: env.types,
    filter: env.filter ?? {},
    account: env.account,
    operationId: env.operationId,
    ...(env.schemaAnswer ? { schema: env.schemaAnswer } : {}),
  };
  const absent = '`pagination`, `lastSynchronizedAt`';
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
  problem ??= pageProblem(ex.json)?.problem;
  ctx.expect('data.absent-keys', problem && `without ${absent}: ${problem}`, {
    subject: typeId,
    exchange: ex,
  });
}
