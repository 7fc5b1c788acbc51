// Notify: an external-action app. Automations in the workspace service call its actions; each
// posts a message to the account's incoming webhook (Slack, Mattermost, ... accept `{text}`).
import {
  ActionError,
  InvalidAccountError,
  UpstreamError,
  arg,
  auth,
  createUpstream,
  defineApp,
  input,
} from '@weft/core';

export const app = defineApp({
  id: 'notify',
  name: 'Notify',
  version: '1.0.0',
  description: 'Posts messages to a chat channel from automations',
  website: 'https://example.com/notify',

  authentication: [
    auth.fields({
      id: 'webhook',
      name: 'Incoming webhook',
      fields: {
        // Whoever has the address can post: it is a secret, like a password.
        webhookUrl: input.text({ name: 'Webhook URL', secret: true }),
      },
      // Checks the address without calling it: a test message on every validation would spam.
      validate(account) {
        return { name: `Webhook on ${webhookAddress(account.webhookUrl).host}` };
      },
    }),
  ],

  actions: {
    'send-message': {
      name: 'Send message',
      description: 'Posts a message to the channel',
      args: {
        text: arg.textarea({ name: 'Message', template: true }),
        urgent: arg.text({
          name: 'Urgent',
          description: '"yes" to prefix the message with 🚨',
          optional: true,
        }),
      },
      async run({ account, args, signal }) {
        if (args.text.trim() === '') throw new ActionError('The message is empty');
        const url = webhookAddress(account.webhookUrl);
        const api = createUpstream({ baseUrl: url.href, signal, secrets: [url.pathname] });
        const text = args.urgent === 'yes' ? `🚨 ${args.text}` : args.text;
        try {
          await api.post('', { json: { text } });
        } catch (error) {
          // A 4xx (a removed webhook, an unknown channel): the action failed, with the reason.
          if (error instanceof UpstreamError) throw new ActionError(error.message, { cause: error });
          throw error;
        }
      },
    },
  },
});

function webhookAddress(value: string): URL {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // Reported below.
  }
  throw new InvalidAccountError('The webhook URL is not an http(s) address');
}
