/** OAuth 1.0a and OAuth 2 authentications and their protocol endpoints (spec 4.4). */
export {
  oauth2,
  pkceChallenge,
  pkceVerifier,
  type OAuth2Account,
  type OAuth2AccessTokenInput,
  type OAuth2Authentication,
  type OAuth2AuthorizeInput,
  type OAuth2Options,
  type OAuth2TokenData,
} from './oauth2.js';
export {
  oauth1,
  type OAuth1Account,
  type OAuth1AccessTokenInput,
  type OAuth1Authentication,
  type OAuth1AuthorizeInput,
  type OAuth1AuthorizeResult,
  type OAuth1Options,
} from './oauth1.js';
export {
  oauth1Signer,
  type OAuth1Consumer,
  type OAuth1SignatureMethod,
  type OAuth1Signer,
  type OAuth1SignerOptions,
  type OAuth1SignRequest,
  type OAuth1Token,
} from './oauth1-signer.js';
export { createOAuthRouter, isOAuth1Authentication, isOAuth2Authentication } from './router.js';
export { OAuthConfigError, type AccountInfo } from './shared.js';
