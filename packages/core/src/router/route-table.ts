import type { RequestHandler } from 'express';

/** Where the route modules add the protocol's routes. */
export interface ProtocolRoutes {
  get(path: string, handler: RequestHandler): void;
  post(path: string, handler: RequestHandler): void;
  delete(path: string, handler: RequestHandler): void;
}

/**
 * The protocol's routes by exact path and method, answered by one middleware. Express tries a
 * request against each route layer in turn (a regular expression each, then the route's own
 * dispatch); the protocol's paths are fixed strings matched case-sensitively and strictly (no
 * trailing slash), which is what one Map lookup of the path does. HEAD is answered by GET's
 * handler, as Express routes do; a path or method not here passes on. A handler of the table
 * answers every request it is given (it never passes one on with `next()`), which is what lets
 * `dispatchDirectly` run it without the router's walk.
 */
export class RouteTable implements ProtocolRoutes {
  private readonly routes = new Map<string, Map<string, RequestHandler>>();

  get(path: string, handler: RequestHandler): void {
    this.add('GET', path, handler);
  }

  post(path: string, handler: RequestHandler): void {
    this.add('POST', path, handler);
  }

  delete(path: string, handler: RequestHandler): void {
    this.add('DELETE', path, handler);
  }

  /** The methods taken at each path. */
  methods(): Map<string, string[]> {
    return new Map([...this.routes].map(([path, byMethod]) => [path, [...byMethod.keys()]]));
  }

  /** The handler of a request's path and method (HEAD: GET's), if the table has one. */
  find(path: string, method: string): RequestHandler | undefined {
    const byMethod = this.routes.get(path);
    return byMethod && (byMethod.get(method) ?? (method === 'HEAD' ? byMethod.get('GET') : undefined));
  }

  /** The middleware answering every route of the table. */
  middleware(): RequestHandler {
    const table = this;
    return function protocolRoutes(req, res, next) {
      const handler = table.find(req.path, req.method);
      if (!handler) {
        next();
        return;
      }
      // Express turns a rejected promise returned here into next(error), as for a route.
      return handler(req, res, next);
    };
  }

  private add(method: string, path: string, handler: RequestHandler): void {
    let byMethod = this.routes.get(path);
    if (!byMethod) {
      byMethod = new Map();
      this.routes.set(path, byMethod);
    }
    if (byMethod.has(method)) throw new Error(`Route ${method} ${path} is added twice`);
    byMethod.set(method, handler);
  }
}
