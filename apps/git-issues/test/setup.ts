// Shared by the tests: the app pointed at the stand-in's address, and the stand-in itself only
// while recording (WEFT_UPSTREAM=record); replaying needs no server at all.
import { type TestApp, testApp } from '@weft/core/testing';
import { createGitIssuesApp } from '../src/app.js';
import {
  CLIENT,
  REFRESH_TOKEN,
  STAND_IN_URL,
  type StandIn,
  TOKENS,
  startStandIn,
} from '../src/demo-github.js';

export const WEBHOOK_SECRET = 'standin-webhook-secret';
export const recording = process.env.WEFT_UPSTREAM === 'record';

export function accountFor(token: string) {
  return {
    access_token: token,
    refresh_token: REFRESH_TOKEN,
    token_type: 'bearer',
    expire_on: '2100-01-01T00:00:00.000Z',
    accountId: '583231',
  };
}
export const ACCOUNT = accountFor(TOKENS.good);

export async function startApp(
  options: { pageSize?: number; webUrl?: string } = {},
): Promise<{ app: TestApp; close(): Promise<void> }> {
  const standIn: StandIn | undefined = recording ? await startStandIn() : undefined;
  const app = await testApp(
    createGitIssuesApp({
      apiUrl: STAND_IN_URL,
      webUrl: STAND_IN_URL,
      clientId: CLIENT.id,
      clientSecret: CLIENT.secret,
      webhookSecret: WEBHOOK_SECRET,
      ...options,
    }),
  );
  return {
    app,
    close: async () => {
      await app.close();
      await standIn?.close();
    },
  };
}
