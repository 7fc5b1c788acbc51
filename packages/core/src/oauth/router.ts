import { type Request, type Response, Router } from 'express';
import type { z } from 'zod';
import type { AuthenticationDefinition } from '../define/authentication.js';
import { BadRequestError } from '../errors/errors.js';
import {
  oauth1AccessTokenRequest,
  oauth1AuthorizeRequest,
  oauth2AccessTokenRequest,
  oauth2AuthorizeRequest,
} from '../protocol/oauth.js';
import { PROTOCOL_PATHS } from '../protocol/paths.js';
import type { OAuth1Authentication } from './oauth1.js';
import type { OAuth2Authentication } from './oauth2.js';

/** True for the definition returned by `oauth2()`. */
export function isOAuth2Authentication(value: AuthenticationDefinition<any>): value is OAuth2Authentication {
  const candidate = value as Partial<OAuth2Authentication>;
  return (
    value.kind === 'oauth2' &&
    typeof candidate.authorize === 'function' &&
    typeof candidate.accessToken === 'function'
  );
}

/** True for the definition returned by `oauth1()`. */
export function isOAuth1Authentication(value: AuthenticationDefinition<any>): value is OAuth1Authentication {
  const candidate = value as Partial<OAuth1Authentication>;
  return (
    value.kind === 'oauth1' &&
    typeof candidate.authorize === 'function' &&
    typeof candidate.accessToken === 'function'
  );
}

/** Parses a request body with a protocol schema; a 400 naming the first offending field otherwise. */
function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestError('Request body must be a JSON object');
  }
  const result = schema.safeParse(body);
  if (result.success) {
    // A lone surrogate cannot be percent-encoded for a signature or a URL: the request is bad,
    // not the provider unavailable.
    if (hasLoneSurrogate(result.data))
      throw new BadRequestError('Request text is not valid UTF-16 (it contains a lone surrogate)');
    return result.data;
  }
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || 'body';
  const missing = issue?.code === 'invalid_type' && issue.message.includes('undefined');
  throw new BadRequestError(
    missing ? `Missing required field "${field}"` : `Invalid field "${field}": ${issue?.message}`,
  );
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function hasLoneSurrogate(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (depth > 8 || value === null || typeof value !== 'object') return false;
  return Object.values(value).some((inner) => hasLoneSurrogate(inner, depth + 1));
}

/** Aborted when the client goes away before the answer is sent. */
function requestSignal(req: Request, res: Response): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  void req;
  return controller.signal;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The OAuth endpoints (spec 4.4) for the OAuth authentications among `authentications`:
 * `/oauth2/v1/authorize` and `/oauth2/v1/access_token` for `oauth2()`, `/oauth1/v1/...` for
 * `oauth1()`. Returns `undefined` when there is none. Expects the host app to parse JSON bodies
 * and to answer errors with `toErrorResponse` + `sendError`.
 */
export function createOAuthRouter(
  authentications: readonly AuthenticationDefinition<any>[],
): Router | undefined {
  const v2 = authentications.find(isOAuth2Authentication);
  const v1 = authentications.find(isOAuth1Authentication);
  if (!v1 && !v2) return undefined;
  // Strict like the protocol router: `/OAUTH2/v1/authorize/` is not an OAuth endpoint.
  const router = Router({ caseSensitive: true, strict: true });

  if (v2) {
    router.post(PROTOCOL_PATHS.oauth2Authorize, async (req, res) => {
      const body = parseBody(oauth2AuthorizeRequest, req.body);
      res.json(await v2.authorize({ callback_uri: body.callback_uri, state: body.state }));
    });
    router.post(PROTOCOL_PATHS.oauth2AccessToken, async (req, res) => {
      const body = parseBody(oauth2AccessTokenRequest, req.body);
      const state = optionalString(body.state) ?? optionalString(body.fields.state);
      // The service forwards the other parameters of the provider's callback at the top level.
      const params: Record<string, string> = {};
      for (const [key, value] of Object.entries(body))
        if (typeof value === 'string' && key !== 'code' && key !== 'state') params[key] = value;
      const data = await v2.accessToken(
        { callback_uri: body.fields.callback_uri, code: body.code, state, params },
        { signal: requestSignal(req, res) },
      );
      res.json(data);
    });
  }

  if (v1) {
    router.post(PROTOCOL_PATHS.oauth1Authorize, async (req, res) => {
      const body = parseBody(oauth1AuthorizeRequest, req.body);
      res.json(await v1.authorize({ callback_uri: body.callback_uri }, { signal: requestSignal(req, res) }));
    });
    router.post(PROTOCOL_PATHS.oauth1AccessToken, async (req, res) => {
      const body = parseBody(oauth1AccessTokenRequest, req.body);
      const account = await v1.accessToken(
        {
          access_token: body.fields.access_token,
          access_secret: body.fields.access_secret,
          oauth_verifier: body.oauth_verifier,
        },
        { signal: requestSignal(req, res) },
      );
      res.json(account);
    });
  }
  return router;
}
