import { z } from 'zod';
import { jsonObject } from './json.js';

/** Request of `POST /oauth2/v1/authorize`. */
export const oauth2AuthorizeRequest = z.looseObject({
  callback_uri: z.string().min(1),
  state: z.string().min(1),
});
export const oauth2AuthorizeResponse = z.looseObject({ redirect_uri: z.string().min(1) });

/** Request of `POST /oauth2/v1/access_token`. */
export const oauth2AccessTokenRequest = z.looseObject({
  fields: z.looseObject({ callback_uri: z.string().min(1) }),
  code: z.string().min(1),
});

/** Request of `POST /oauth1/v1/authorize`. */
export const oauth1AuthorizeRequest = z.looseObject({ callback_uri: z.string().min(1) });
export const oauth1AuthorizeResponse = z.looseObject({
  redirect_uri: z.string().min(1),
  token: z.string().min(1),
  secret: z.string().min(1),
});

/** Request of `POST /oauth1/v1/access_token`. */
export const oauth1AccessTokenRequest = z.looseObject({
  fields: z.looseObject({
    access_token: z.string().min(1),
    access_secret: z.string().min(1),
    callback_uri: z.string().optional(),
  }),
  oauth_verifier: z.string().min(1),
});

/** Account data returned by either access_token endpoint. */
export const oauthAccountResponse = jsonObject;
