import { oauth1AuthorizeResponse, oauthAccountResponse, PROTOCOL_PATHS } from '@weft/core/protocol';
import { type AppClient, parseAnswer } from '@weft/sync-engine';

// The service's side of an app's OAuth 1 endpoints. The app talks to the provider; the workspace
// only passes the callback address (carrying its `state`), keeps the request token and secret the
// app hands back, and returns them with the provider's verifier to get the account.

type Json = Record<string, unknown>;

/** `POST /oauth1/v1/authorize`: where to send the user, and the request token and its secret. */
export async function oauth1Authorize(
  client: AppClient,
  callbackUri: string,
): Promise<{ redirectUri: string; token: string; secret: string }> {
  const path = PROTOCOL_PATHS.oauth1Authorize;
  const answer = parseAnswer(
    oauth1AuthorizeResponse,
    path,
    await client.call('POST', path, { callback_uri: callbackUri }),
  );
  return { redirectUri: answer.redirect_uri, token: answer.token, secret: answer.secret };
}

/** `POST /oauth1/v1/access_token`: the approved request token and the verifier become the account. */
export async function oauth1AccessToken(
  client: AppClient,
  input: { token: string; secret: string; callbackUri: string; verifier: string },
): Promise<Json> {
  const path = PROTOCOL_PATHS.oauth1AccessToken;
  const answer = await client.call('POST', path, {
    fields: { access_token: input.token, access_secret: input.secret, callback_uri: input.callbackUri },
    oauth_verifier: input.verifier,
  });
  return parseAnswer(oauthAccountResponse, path, answer) as Json;
}
