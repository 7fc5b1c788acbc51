// Rich-text documents: by secret, or through the field of an entity (the service's two steps:
// read the document secret with a query, then use the document endpoints).
import { WorkspaceError } from '../errors.js';
import { DOCUMENT_SECRET } from './schema.js';
import type { ClientContext } from './context.js';

export type DocumentFormat = 'html' | 'md' | (string & {});

export function documentsApi(ctx: ClientContext) {
  const api = {
    async get(secret: string, format: DocumentFormat = 'md'): Promise<string> {
      const body = await ctx.transport.json<{ content?: unknown }>({
        method: 'GET',
        path: `/api/documents/${encodeURIComponent(secret)}`,
        query: { format },
        idempotent: true,
      });
      return typeof body?.content === 'string' ? body.content : '';
    },
    async put(secret: string, content: string, format: DocumentFormat = 'md'): Promise<void> {
      await ctx.transport.send({
        method: 'PUT',
        path: `/api/documents/${encodeURIComponent(secret)}`,
        query: { format },
        json: { content },
        idempotent: true,
      });
    },
    /** Several documents in one request (`get-documents`). */
    async getMany(
      secrets: string[],
      format?: DocumentFormat,
    ): Promise<{ secret: string; content: string }[]> {
      const body = await ctx.transport.json<{ secret: string; content: string }[]>({
        method: 'POST',
        path: '/api/documents/commands',
        query: { format },
        json: { command: 'get-documents', args: secrets.map((secret) => ({ secret })) },
        idempotent: true,
      });
      return Array.isArray(body) ? body : [];
    },
    /** Several documents written in one request (`create-or-update-documents`). */
    async putMany(
      documents: { secret: string; content: string }[],
      format: DocumentFormat = 'md',
    ): Promise<void> {
      await ctx.transport.send({
        method: 'POST',
        path: '/api/documents/commands',
        query: { format },
        json: { command: 'create-or-update-documents', args: documents },
        idempotent: true,
      });
    },
    /** The document secret behind the rich-text `field` of entity `id`. */
    async secretOf(type: string, id: string, field: string): Promise<string> {
      const rows = (await ctx.channel.run({
        command: 'svc.entity/query',
        args: {
          query: {
            'q/from': type,
            'q/select': ['svc/id', { [field]: [DOCUMENT_SECRET] }],
            'q/where': ['=', ['svc/id'], '$id'],
            'q/limit': 1,
          },
          params: { $id: id },
        },
      })) as Record<string, Record<string, unknown> | null>[];
      const secret = rows[0]?.[field]?.[DOCUMENT_SECRET];
      if (typeof secret !== 'string') {
        throw new WorkspaceError({
          kind: 'command',
          command: 'svc.entity/query',
          serviceMessage: rows.length === 0 ? `no ${type} with id ${id}` : `${field} has no document`,
        });
      }
      return secret;
    },
    /** Reads the rich text of one entity's field. */
    async read(type: string, id: string, field: string, format: DocumentFormat = 'md'): Promise<string> {
      return api.get(await api.secretOf(type, id, field), format);
    },
    /** Writes the rich text of one entity's field. */
    async write(
      type: string,
      id: string,
      field: string,
      content: string,
      format: DocumentFormat = 'md',
    ): Promise<void> {
      await api.put(await api.secretOf(type, id, field), content, format);
    },
  };
  return api;
}
