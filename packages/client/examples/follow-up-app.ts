// Example: an external-action app (built with @weft/core) that writes back into the workspace
// through @weft/client. Its action "Create follow-up" creates an entity (a follow-up task) and
// links it, with a comment, to the entity the automation ran on.
//
// Run it: `npx tsx packages/client/examples/follow-up-main.ts` (port 3110); the user
// gives it an API token of the workspace when adding the account.
import { ActionError, arg, auth, defineApp, input } from '@weft/core';
import { createWorkspaceClient, WorkspaceError } from '../src/index.js';

export interface FollowUpAccount {
  workspaceUrl: string;
  apiToken: string;
}

function clientFor(account: FollowUpAccount) {
  // Every client made for the same token shares one rate budget in this process, so concurrent
  // action runs queue for the workspace's limit instead of tripping it.
  return createWorkspaceClient({ url: account.workspaceUrl, token: account.apiToken });
}

export const followUpApp = defineApp({
  id: 'follow-up',
  name: 'Follow-up',
  version: '1.0.0',
  description: 'Creates follow-up entities in the workspace from automations',
  website: 'https://github.com/weft/weft/tree/main/packages/client/examples',
  authentication: [
    auth.fields({
      id: 'token',
      name: 'Workspace API token',
      fields: {
        workspaceUrl: input.text({ name: 'Workspace URL' }),
        apiToken: input.password({ name: 'API token' }),
      },
      validate: async (account) => {
        // One cheap read proves the address and the token.
        await clientFor(account).schema.query();
        return { name: `Workspace ${new URL(account.workspaceUrl).host}` };
      },
    }),
  ],
  actions: {
    'create-follow-up': {
      name: 'Create follow-up',
      description: 'Creates an entity and links it to the one the rule ran on, with a comment',
      args: {
        type: arg.text({ name: 'Type of the follow-up', description: 'e.g. Tracker/Task' }),
        titleField: arg.text({ name: 'Title field', description: 'e.g. Tracker/Name' }),
        title: arg.text({ name: 'Title', template: true }),
        parentType: arg.text({ name: 'Type of the entity the rule ran on' }),
        parentId: arg.text({ name: 'Id of that entity', template: true }),
        linkField: arg.text({ name: 'Collection field on it that holds follow-ups' }),
        comment: arg.textarea({ name: 'Comment', template: true, optional: true }),
        authorId: arg.text({ name: 'Comment author (user id)', optional: true }),
      },
      async run({ account, args }) {
        const client = clientFor(account);
        try {
          // One atomic batch: the follow-up exists and is linked, or neither.
          const id = crypto.randomUUID();
          await client.batch((b) => [
            b.entities.create(args.type, { 'svc/id': id, [args.titleField]: args.title }),
            b.entities.addItems(args.parentType, args.parentId, args.linkField, [id]),
          ]);
          if (args.comment && args.authorId) {
            await client.comments.add({
              type: args.parentType,
              id: args.parentId,
              text: args.comment,
              authorId: args.authorId,
            });
          }
        } catch (error) {
          // The service's message (never the token) tells the user what to fix in the rule.
          if (error instanceof WorkspaceError && error.kind === 'command')
            throw new ActionError(error.message);
          throw error;
        }
      },
    },
  },
});
