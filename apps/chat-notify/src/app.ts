// Chat notify: an external-action app that posts messages and alerts to a chat "incoming
// webhook" (Slack, Mattermost, Rocket.Chat, ... : POST JSON `{text}`) from automations.
import {
  ActionError,
  InvalidAccountError,
  type Logger,
  UpstreamError,
  arg,
  auth,
  bearer,
  createUpstream,
  defineApp,
  input,
} from '@weft/core';

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

const SEVERITY_ICON: Record<Severity, string> = {
  info: ':information_source:',
  warning: ':warning:',
  critical: ':rotating_light:',
};

export interface ChatNotifyOptions {
  /** Time limit of one webhook call in ms; default 10,000. */
  timeoutMs?: number;
  /** Base of the retry backoff in ms (429 only, see `post`); default core's 250. */
  backoffMs?: number;
}

interface WebhookAccount {
  webhookUrl: string;
  token?: string;
}

/**
 * The webhook address, checked: an absolute http(s) URL without embedded credentials.
 * Throws `InvalidAccountError` (401) otherwise.
 */
export function parseWebhookUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new InvalidAccountError('The webhook URL is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidAccountError(
      `The webhook URL must use http or https, not ${url.protocol.replace(':', '')}`,
    );
  }
  if (url.username || url.password) {
    throw new InvalidAccountError(
      'The webhook URL must not contain a user name or password; use the Token field',
    );
  }
  return url;
}

export function createChatNotifyApp(options: ChatNotifyOptions = {}) {
  /**
   * POSTs one JSON message to the account's webhook.
   *
   * Not `idempotent`: incoming webhooks do not deduplicate, so repeating a POST after a 5xx,
   * a timeout or a reset connection may post the message twice. The helper therefore sends it
   * once and answers `tryLater` on 5xx and network trouble (the service decides whether to run
   * the action again). A 429 is still retried in-process, because a rate-limited request was
   * not processed.
   */
  async function post(
    account: WebhookAccount,
    payload: Record<string, unknown>,
    signal: AbortSignal,
    log: Logger,
  ) {
    const url = parseWebhookUrl(account.webhookUrl);
    const api = createUpstream({
      baseUrl: url.href,
      ...(account.token ? { auth: bearer(account.token) } : {}),
      signal,
      log,
      timeoutMs: options.timeoutMs ?? 10_000,
      ...(options.backoffMs === undefined ? {} : { backoff: options.backoffMs }),
      // Keep in-process waits well inside the action's time limit.
      maxRetryAfterSeconds: 10,
      // The webhook's path is its secret (e.g. Slack's /services/T../B../xyz): keep it out of errors.
      secrets: secretParts(url),
    });
    try {
      await api.post('', { json: payload });
    } catch (error) {
      if (error instanceof UpstreamError) {
        // A 4xx other than 401/403 (those are InvalidAccountError): the chat service refused
        // this message, e.g. an unknown channel or a removed webhook.
        throw new ActionError(`The chat service refused the message: ${error.message}`, { cause: error });
      }
      throw error;
    }
  }

  return defineApp({
    id: 'chat-notify',
    name: 'Chat notify',
    version: '1.0.0',
    description:
      'Posts messages and alerts to a chat channel through an incoming webhook (Slack, Mattermost, ...).',
    website: 'https://github.com/weft/weft/tree/main/apps/chat-notify',
    logo: {
      svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#3b6fd4" d="M4 4h16v11H9l-5 4z"/></svg>',
    },
    authentication: [
      auth.fields({
        id: 'webhook',
        name: 'Incoming webhook',
        description: 'The address of an incoming webhook of your chat workspace',
        fields: {
          // The address is the credential (whoever has it can post): redacted like a password.
          webhookUrl: input.text({
            secret: true,
            name: 'Webhook URL',
            description: 'e.g. https://hooks.slack.com/services/T000/B000/XXXX',
          }),
          token: input.password({
            name: 'Token',
            description: 'Sent as "Authorization: Bearer <token>" when your webhook requires one',
            optional: true,
          }),
          help: input.link({
            name: 'How to create an incoming webhook',
            url: 'https://api.slack.com/messaging/webhooks',
          }),
        },
        // Checks the address only, without calling it: a test message on every validation
        // would spam the channel, and webhooks have no read-only endpoint to probe.
        validate: (account) => {
          const url = parseWebhookUrl(account.webhookUrl);
          return { name: `Chat webhook ${url.host}` };
        },
      }),
    ],
    actions: {
      'send-message': {
        name: 'Send message',
        description: 'Posts a message to the webhook’s channel',
        args: {
          text: arg.textarea({
            name: 'Message',
            description: 'Markdown text; supports templates',
            template: true,
          }),
          channel: arg.text({
            name: 'Channel',
            description: 'Overrides the webhook’s channel where the chat allows it (e.g. #ops)',
            optional: true,
          }),
        },
        async run({ account, args, signal, log }) {
          await post(
            account,
            { text: args.text, ...(args.channel ? { channel: args.channel } : {}) },
            signal,
            log,
          );
        },
      },
      'send-alert': {
        name: 'Send alert',
        description: 'Posts a formatted alert with a severity',
        args: {
          title: arg.text({ name: 'Title', template: true }),
          severity: arg.text({ name: 'Severity', description: 'info, warning or critical' }),
          details: arg.textarea({ name: 'Details', template: true, optional: true }),
        },
        async run({ account, args, signal, log }) {
          const severity = args.severity.trim().toLowerCase();
          if (!isSeverity(severity)) {
            throw new ActionError(`Severity "${args.severity}" is not one of ${SEVERITIES.join(', ')}`);
          }
          await post(account, { text: formatAlert(severity, args.title, args.details) }, signal, log);
        },
      },
    },
  });
}

function isSeverity(value: string): value is Severity {
  return (SEVERITIES as readonly string[]).includes(value);
}

/** `:warning: *[WARNING] Disk almost full*` and the details on the next lines. */
export function formatAlert(severity: Severity, title: string, details?: string): string {
  const head = `${SEVERITY_ICON[severity]} *[${severity.toUpperCase()}] ${title.trim()}*`;
  return details?.trim() ? `${head}\n${details.trim()}` : head;
}

/**
 * The parts of a webhook URL that act as its credential: the path and query. The host stays
 * readable in error messages (`POST https://hooks.slack.com[redacted] answered 404`).
 */
function secretParts(url: URL): string[] {
  return [url.pathname.length > 1 ? url.pathname : '', url.search].filter((part) => part.length >= 4);
}

/** The app, ready to serve. */
export const chatNotifyApp = createChatNotifyApp();
export default chatNotifyApp;
