// An exchange as shown to a person: the account's secrets redacted in the request (also one with
// a quote, escaped in the JSON text, and one echoed base64-encoded in the error body), an error
// body clipped, a 2xx answer's body never shown.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../src/exchange.js';
import {
  accountSecrets,
  exchangeLine,
  MAX_SUMMARY_TEXT,
  summarizeExchange,
} from '../src/exchange-summary.js';

const account = { auth: 'key', name: 'Ada', passcode: 'pa"ss\\word-77', token: 'tok-123456' };
const secrets = accountSecrets(account, ['passcode']);
const request = JSON.stringify({ requestedType: 'book', account });
const base = {
  method: 'POST',
  path: '/api/v1/synchronizer/data',
  requestBody: request,
  isJson: true,
  ms: 12.4,
};

describe('summarizeExchange', () => {
  it('redacts the account in the request, and the secrets in any form in an error body', () => {
    const echoed = Buffer.from('user:tok-123456').toString('base64');
    const exchange: Exchange = {
      ...base,
      status: 401,
      json: { message: `bad ${echoed}` },
      text: JSON.stringify({ message: `bad ${echoed} and tok-123456` }),
    };
    const summary = summarizeExchange(exchange, secrets);
    expect(JSON.parse(summary.request as string)).toEqual({
      requestedType: 'book',
      account: { auth: 'key', name: 'Ada', passcode: '[redacted]', token: '[redacted]' },
    });
    expect(summary.errorBody).not.toContain('tok-123456');
    expect(summary.errorBody).not.toContain(echoed);
    expect(summary).toMatchObject({ status: 401, ms: 12 });
    expect(exchangeLine(summary, 'book page 1')).toMatch(
      /^POST \/api\/v1\/synchronizer\/data 401 in 12 ms: book page 1\n {2}request: \{.*\}\n {2}answer: \{"message":"bad \S*\[redacted\] and \[redacted\]"\}$/,
    );
  });

  it('clips a long error body and shows no body of a 2xx answer', () => {
    const long = summarizeExchange({ ...base, status: 500, text: 'x'.repeat(10_000) }, secrets);
    expect(long.errorBody?.length).toBeLessThan(MAX_SUMMARY_TEXT + 40);
    expect(long.errorBody).toMatch(/\(10000 characters\)$/);
    const ok = summarizeExchange({ ...base, status: 200, text: '{"items":[]}' }, secrets);
    expect(ok.errorBody).toBeUndefined();
    expect(exchangeLine(ok)).not.toContain('answer:');
  });
});
