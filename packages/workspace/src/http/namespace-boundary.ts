import { codecsFor, type Namespace, type NamespaceCodec } from '@weft/namespace';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Queryable } from '../db/driver.js';
import { loadCatalog } from '../schema/catalog.js';
import { catalogLookup } from '../schema/field-lookup.js';

// Where the data API meets callers that name the service's namespace otherwise than weft does
// inside (WEFT_NAMESPACE=fibery): request bodies are renamed into svc before any router sees them,
// and JSON answers out of svc on their way back. Only names are renamed (see @weft/namespace);
// with the default namespace there is no middleware at all, so the default costs nothing.

type Encode = (codec: NamespaceCodec, body: unknown) => unknown;

// The JSON answers that carry names, by route; every other answer only has its error message
// renamed. Request bodies with names: the commands, a new webhook's type and view calls' params.
const ANSWERS: { method: string; path: RegExp; encode: Encode }[] = [
  { method: 'POST', path: /^\/api\/files(\/from-url)?$/, encode: (c, b) => c.entity('svc/file', b) },
  // the schema as a plain GET (when served): the same object as …schema/query answers
  { method: 'GET', path: /^\/api\/schema$/, encode: (c, b) => c.schema(b) },
  {
    method: 'GET',
    path: /^\/api\/webhooks\/v2$/,
    encode: (c, b) => (Array.isArray(b) ? b.map((w) => c.webhook(w)) : b),
  },
  { method: 'POST', path: /^\/api\/webhooks\/v2$/, encode: (c, b) => c.webhook(b) },
  {
    method: 'GET',
    path: /^\/api\/users$/,
    encode: (c, b) => (Array.isArray(b) ? b.map((u) => c.entity('svc/user', u)) : b),
  },
  { method: 'POST', path: /^\/api\/users$/, encode: (c, b) => c.entity(undefined, b) },
  {
    method: 'POST',
    path: /^\/api\/views\/json-rpc$/,
    encode: (c, b) => (isRpcAnswer(b) ? { ...b, result: c.view(b.result) } : b),
  },
];

const isRpcAnswer = (b: unknown): b is { result: unknown } =>
  typeof b === 'object' && b !== null && 'result' in b;

const withParams = (body: unknown, map: (params: unknown) => unknown) =>
  typeof body === 'object' && body !== null && 'params' in body
    ? { ...body, params: map((body as { params: unknown }).params) }
    : body;

/** The middleware for `namespace`, mounted on /api after the bodies are parsed; none for svc. */
export function namespaceBoundary(namespace: Namespace, q: Queryable): RequestHandler | undefined {
  const codecs = codecsFor(namespace);
  if (!codecs) return undefined;
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      if (req.method === 'POST' && req.path === '/commands' && req.body !== undefined) {
        const lookup = catalogLookup(await loadCatalog(q));
        const commands = codecs.in.withLookup(lookup).commands(req.body);
        req.body = commands;
        const out = codecs.out.withLookup(lookup);
        const send = res.send.bind(res);
        // the router sends its answer as JSON text (commands/answer-json.ts); errors come as
        // res.json, which ends here too
        res.send = (body?: unknown) => {
          if (typeof body !== 'string') return send(body);
          let parsed: unknown;
          try {
            parsed = JSON.parse(body);
          } catch {
            return send(body);
          }
          return send(
            JSON.stringify(res.statusCode >= 400 ? out.errorBody(parsed) : out.results(commands, parsed)),
          );
        };
        next();
        return;
      }
      if (req.method === 'POST' && req.path === '/webhooks/v2') req.body = codecs.in.webhook(req.body);
      if (req.method === 'POST' && req.path === '/views/json-rpc')
        req.body = withParams(req.body, (p) => codecs.in.view(p));
      const route = ANSWERS.find(
        (a) => a.method === req.method && a.path.test(req.originalUrl.split('?')[0]!),
      );
      const json = res.json.bind(res);
      res.json = (body?: unknown) =>
        json(
          res.statusCode >= 400 ? codecs.out.errorBody(body) : route ? route.encode(codecs.out, body) : body,
        );
      next();
    } catch (error) {
      next(error);
    }
  };
}
