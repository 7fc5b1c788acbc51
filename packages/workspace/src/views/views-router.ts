import { Router } from 'express';
import { principalOf } from '../auth/authenticate.js';
import type { Principal } from '../auth/principal.js';
import type { Driver, Queryable } from '../db/driver.js';
import { createViews, deleteViews, queryViews, RpcError, updateViews } from './view-store.js';

// POST /api/views/json-rpc: JSON-RPC 2.0. Every answer is HTTP 200 with either `result` or an
// `error` object {code, message}: -32700 parse error, -32600 invalid request, -32601 unknown
// method, -32602 invalid params, -32004 not found, -32009 conflict, -32603 internal error.

const METHODS: Record<
  string,
  (q: Queryable, user: Principal, params: Record<string, unknown>) => Promise<unknown>
> = {
  'query-views': queryViews,
  'create-views': createViews,
  'update-views': updateViews,
  'delete-views': deleteViews,
};

type Id = string | number | null;

async function handle(driver: Driver, user: Principal, message: unknown): Promise<unknown> {
  const m = (
    typeof message === 'object' && message !== null && !Array.isArray(message) ? message : {}
  ) as Record<string, unknown>;
  const id: Id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null;
  const error = (code: number, msg: string) => ({ jsonrpc: '2.0', id, error: { code, message: msg } });
  if (m.jsonrpc !== '2.0' || typeof m.method !== 'string') {
    return error(-32600, 'Invalid request: send {jsonrpc: "2.0", method, params}');
  }
  const method = Object.hasOwn(METHODS, m.method) ? METHODS[m.method] : undefined;
  if (!method) return error(-32601, `Method not found: ${m.method}`);
  const params = m.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return error(-32602, 'params must be an object');
  try {
    const result = await driver.transaction((tx) => method(tx, user, params as Record<string, unknown>));
    return { jsonrpc: '2.0', id, result };
  } catch (e) {
    if (e instanceof RpcError) return error(e.code, e.message);
    return error(-32603, 'Internal error');
  }
}

export function viewsRouter(driver: Driver): Router {
  const router = Router();
  router.post('/api/views/json-rpc', async (req, res) => {
    const user = principalOf(res);
    if (Array.isArray(req.body)) {
      if (req.body.length === 0) {
        res.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Empty batch' } });
        return;
      }
      const out = [];
      for (const m of req.body) out.push(await handle(driver, user, m));
      res.json(out);
      return;
    }
    res.json(await handle(driver, user, req.body));
  });
  return router;
}
