// Adding a comment is four steps at the service (two ids, create the comment, link it to the
// parent, write its text); `add` does them as one call: one atomic batch and one document write.
import { randomUUID } from 'node:crypto';
import type { ClientContext } from './context.js';
import type { DocumentFormat } from './documents.js';
import { collectionArgs } from './entities.js';

export interface AddCommentInput {
  /** Parent entity's type (it needs the comments mixin) and id. */
  type: string;
  id: string;
  /** The comment's text. */
  text: string;
  /** The user the comment is from. */
  authorId: string;
  format?: DocumentFormat;
}

export interface AddedComment {
  'svc/id': string;
  'comment/document-secret': string;
  entity: Record<string, unknown>;
}

export function commentsApi(
  ctx: ClientContext,
  putDocuments: (docs: { secret: string; content: string }[], format: DocumentFormat) => Promise<void>,
) {
  return {
    async add(input: AddCommentInput): Promise<AddedComment> {
      const id = randomUUID();
      const secret = randomUUID();
      const results = (await ctx.channel.run({
        command: 'svc.command/batch',
        args: {
          commands: [
            {
              command: 'svc.entity/create',
              args: {
                type: 'comments/comment',
                entity: {
                  'svc/id': id,
                  'comment/document-secret': secret,
                  'comment/author': { 'svc/id': input.authorId },
                },
              },
            },
            {
              command: 'svc.entity/add-collection-items',
              args: collectionArgs(input.type, input.id, 'comments/comments', [id]),
            },
          ],
        },
      })) as unknown[];
      await putDocuments([{ secret, content: input.text }], input.format ?? 'md');
      return {
        'svc/id': id,
        'comment/document-secret': secret,
        entity: (results[0] ?? {}) as Record<string, unknown>,
      };
    },
  };
}
