// Views, over the service's JSON-RPC 2.0 endpoint.
import { WorkspaceError } from '../errors.js';
import type { ClientContext } from './context.js';

export interface View {
  'svc/id': string;
  'svc/name': string;
  'svc/type': 'board' | (string & {});
  'svc/meta': Record<string, unknown>;
  'svc/container-app': { 'svc/id': string };
  [key: string]: unknown;
}

let rpcId = 0;

export function viewsApi(ctx: ClientContext) {
  async function call<T>(method: string, params: Record<string, unknown>, idempotent: boolean): Promise<T> {
    const id = ++rpcId;
    const body = await ctx.transport.json<{ result?: T; error?: { message?: string; code?: number } }>({
      method: 'POST',
      path: '/api/views/json-rpc',
      json: { jsonrpc: '2.0', id, method, params: ctx.names ? ctx.names.out.view(params) : params },
      idempotent,
    });
    if (body?.error) {
      throw new WorkspaceError({
        kind: 'command',
        command: method,
        serviceMessage: body.error.message ?? `JSON-RPC error ${body.error.code ?? ''}`.trim(),
      });
    }
    return (ctx.names ? ctx.names.in.view(body?.result) : body?.result) as T;
  }
  return {
    /** All views, or those with the given ids or public ids. */
    query(filter?: { ids?: string[]; publicIds?: string[] }): Promise<View[]> {
      return call('query-views', filter ? { filter } : {}, true);
    },
    create(
      views: (Partial<View> & Pick<View, 'svc/name' | 'svc/type' | 'svc/container-app'>)[],
    ): Promise<View[]> {
      return call('create-views', { views }, false);
    },
    update(
      updates: { id: string; values: { 'svc/name'?: string; 'svc/meta'?: Record<string, unknown> } }[],
    ): Promise<unknown> {
      return call('update-views', { updates }, true);
    },
    delete(ids: string[]): Promise<unknown> {
      return call('delete-views', { ids }, true);
    },
  };
}
