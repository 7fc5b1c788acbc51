// Dispatch: an external-action app whose actions do real work from automations: send an
// e-mail over SMTP and make an HTTP request. Settings come from the deployment (see config.ts);
// on no settings at all it runs as is, logging e-mails instead of sending them.
import { timingSafeEqual } from 'node:crypto';
import { ActionError, InvalidAccountError, arg, auth, defineApp, input } from '@weft/core';
import { DEFAULT_FROM, type DispatchConfig } from './config.js';
import { prepareRequest, sendRequest } from './http-request.js';
import { type Mailer, createMailer } from './mailer.js';
import { saveEntity } from './save-entity.js';

/** Most recipients of one e-mail (to and cc together). */
export const MAX_RECIPIENTS = 50;

/**
 * Router options the app needs: an `http-request` body may be up to 1 MB, above core's default
 * request limit, so the execute route must accept a little more than that.
 */
export const DISPATCH_ROUTER_OPTIONS = { bodyLimit: '2mb' } as const;

export interface DispatchOptions extends Partial<DispatchConfig> {
  /** The mailer; default one built from `smtpUrl` and `mailFrom`. */
  mailer?: Mailer;
  /** Time limit of one HTTP request in ms; default 15,000. */
  httpTimeoutMs?: number;
  /** Time limits of the SMTP conversation in ms; default 10,000. */
  smtpTimeoutMs?: number;
}

export function createDispatchApp(options: DispatchOptions = {}) {
  const allowInternal = options.allowPrivateNetworks ?? false;
  const mailer =
    options.mailer ??
    createMailer({
      ...(options.smtpUrl ? { smtpUrl: options.smtpUrl } : {}),
      from: options.mailFrom ?? DEFAULT_FROM,
      ...(options.smtpTimeoutMs === undefined ? {} : { timeoutMs: options.smtpTimeoutMs }),
    });
  const token = options.token;

  /** With DISPATCH_TOKEN set, only accounts holding it may run actions. */
  function checkToken(account: { token?: unknown }) {
    if (token === undefined) return;
    const given = Buffer.from(typeof account.token === 'string' ? account.token : '');
    const expected = Buffer.from(token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new InvalidAccountError('The dispatch token is not valid');
    }
  }

  const authentication = token
    ? auth.fields({
        id: 'token',
        name: 'Dispatch token',
        description: 'The token the operator of this app gave you',
        fields: { token: input.password({ name: 'Token' }) },
        validate: (account) => {
          checkToken(account);
          return { name: 'Dispatch' };
        },
      })
    : auth.none({ name: 'No account', description: 'This deployment needs no token' });

  return defineApp({
    id: 'dispatch',
    name: 'Dispatch',
    version: '1.0.0',
    description: 'Sends e-mails over SMTP and makes HTTP requests from automations.',
    website: 'https://github.com/weft/weft/tree/main/apps/dispatch',
    logo: {
      svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="#16a085" d="M2 4h20v14H2z"/><path fill="#fff" d="M2 4l10 8 10-8v2l-10 8L2 6z"/><path fill="#e67e22" d="M15 17l7 3-2-5z"/></svg>',
    },
    // Which authentication depends on the deployment; the cast gives both one account type for
    // the handlers, which read `account.token` through `checkToken` only.
    authentication: [authentication as ReturnType<typeof auth.none>],
    actions: {
      'send-email': {
        name: 'Send e-mail',
        description: 'Sends a plain-text e-mail',
        args: {
          to: arg.text({ name: 'To', description: 'Addresses, separated by commas', template: true }),
          subject: arg.text({ name: 'Subject', template: true }),
          body: arg.textarea({
            name: 'Message',
            description: 'Plain text; supports templates',
            template: true,
          }),
          cc: arg.text({
            name: 'Cc',
            description: 'Addresses, separated by commas',
            optional: true,
            template: true,
          }),
          replyTo: arg.text({ name: 'Reply to', description: 'One address', optional: true }),
        },
        async run({ account, args, log }) {
          checkToken(account as { token?: unknown });
          const to = addresses('To', args.to);
          const cc = addresses('Cc', args.cc ?? '');
          if (to.length === 0) throw new ActionError('"To" names no address');
          if (to.length + cc.length > MAX_RECIPIENTS) {
            throw new ActionError(`At most ${MAX_RECIPIENTS} recipients per e-mail`);
          }
          const replyTo = args.replyTo?.trim() ? addresses('Reply to', args.replyTo) : [];
          if (replyTo.length > 1) throw new ActionError('"Reply to" takes one address');
          // A subject is one line: templates may bring newlines, which are not headers' business.
          const subject = args.subject.replace(/\s*[\r\n]+\s*/g, ' ').trim();
          if (subject === '') throw new ActionError('The subject is empty');
          await mailer.send(
            { to, cc, subject, text: args.body, ...(replyTo[0] ? { replyTo: replyTo[0] } : {}) },
            log,
          );
        },
      },
      'http-request': {
        name: 'HTTP request',
        description: 'Sends one HTTP request; succeeds on a 2xx answer',
        args: {
          method: arg.text({
            name: 'Method',
            description: 'GET, POST, PUT, PATCH, DELETE or HEAD; default GET',
            optional: true,
          }),
          url: arg.text({ name: 'URL', description: 'http(s) address; supports templates', template: true }),
          headers: arg.textarea({
            name: 'Headers',
            description: 'One "Name: value" per line',
            optional: true,
            template: true,
          }),
          body: arg.textarea({
            name: 'Body',
            description: 'Sent as JSON when it is JSON, else as text',
            optional: true,
            template: true,
          }),
        },
        async run({ account, args, signal, log }) {
          checkToken(account as { token?: unknown });
          const request = prepareRequest(args, allowInternal);
          await sendRequest(request, {
            allowInternal,
            timeoutMs: options.httpTimeoutMs ?? 15_000,
            signal,
            log,
          });
        },
      },
      'save-entity': {
        name: 'Create or update an entity',
        description: 'Writes an entity of this workspace: creates one, or updates the one with the given id',
        args: {
          type: arg.text({ name: 'Type', description: 'e.g. Tracker/Task' }),
          id: arg.text({
            name: 'Id',
            description: 'Update the entity with this svc/id; empty: create a new one',
            optional: true,
            template: true,
          }),
          fields: arg.textarea({
            name: 'Fields',
            description: 'One "<app>/<field>: value" per line; "=" before a value makes it JSON (=3, =true)',
            template: true,
          }),
        },
        async run({ account, args }) {
          checkToken(account as { token?: unknown });
          const target = options.workspace;
          if (!target) {
            throw new ActionError(
              'This deployment writes to no workspace: set WORKSPACE_URL and WORKSPACE_TOKEN',
            );
          }
          await saveEntity(target, args);
        },
      },
    },
  });
}

/** `a@x.org, b@y.org` → the addresses; 400 naming the argument for anything else. */
function addresses(argument: string, value: string): string[] {
  const list = value
    .split(/[,;]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const address of list) {
    if (!/^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]{2,}$/.test(address)) {
      throw new ActionError(`"${argument}": "${address.slice(0, 80)}" is not an e-mail address`);
    }
  }
  return list;
}
