// Sending e-mail with nodemailer. With an SMTP URL it talks to that server; without one (the
// embedded default) it uses nodemailer's JSON transport, which builds the whole message but
// sends nothing, and the app logs who would have received what, so the app runs with no set-up.
import { ActionError, type Logger, TryLaterError, WeftError, redact } from '@weft/core';
import nodemailer from 'nodemailer';

export interface Mail {
  to: string[];
  cc: string[];
  replyTo?: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** `smtp` or `log` (the embedded default). */
  readonly kind: 'smtp' | 'log';
  send(mail: Mail, log: Logger): Promise<{ messageId: string }>;
  close(): void;
}

export interface MailerOptions {
  smtpUrl?: URL;
  from: string;
  /** Connection, greeting and socket time limits in ms; default 10,000. */
  timeoutMs?: number;
}

export function createMailer(options: MailerOptions): Mailer {
  const timeout = options.timeoutMs ?? 10_000;
  const smtp = options.smtpUrl;
  // The password (and the whole URL) must never reach a message or a log line.
  const secrets = smtp ? [smtp.password, decodeURIComponent(smtp.password), smtp.href].filter((s) => s) : [];
  const transport = smtp
    ? nodemailer.createTransport({
        host: smtp.hostname,
        port: smtp.port ? Number(smtp.port) : smtp.protocol === 'smtps:' ? 465 : 587,
        secure: smtp.protocol === 'smtps:',
        ...(smtp.username
          ? { auth: { user: decodeURIComponent(smtp.username), pass: decodeURIComponent(smtp.password) } }
          : {}),
        connectionTimeout: timeout,
        greetingTimeout: timeout,
        socketTimeout: timeout,
        // A local relay without a certificate signed for its name is common; STARTTLS is still
        // used when offered. Set SMTP_URL to smtps:// to require TLS from the first byte.
        tls: { rejectUnauthorized: smtp.searchParams.get('tls') !== 'insecure' },
      })
    : nodemailer.createTransport({ jsonTransport: true });

  return {
    kind: smtp ? 'smtp' : 'log',
    async send(mail, log) {
      try {
        const info = await transport.sendMail({
          from: options.from,
          to: mail.to,
          ...(mail.cc.length > 0 ? { cc: mail.cc } : {}),
          ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
          subject: mail.subject,
          text: mail.text,
        });
        log.info(
          {
            transport: smtp ? 'smtp' : 'log',
            to: mail.to,
            cc: mail.cc,
            subject: mail.subject,
            messageId: info.messageId,
          },
          smtp ? 'e-mail sent' : 'e-mail not sent (no SMTP_URL): logged only',
        );
        return { messageId: info.messageId };
      } catch (error) {
        throw toWeftError(error, secrets);
      }
    },
    close() {
      transport.close();
    },
  };
}

/** SMTP trouble in the service's terms: temporary is tryLater, a refusal is the action's failure. */
// No `cause`: nodemailer errors may carry the SMTP command that failed, e.g. an AUTH line.
function toWeftError(error: unknown, secrets: string[]): Error {
  const e = error as { code?: string; responseCode?: number; response?: string; message?: string };
  const detail = redact(String(e.response ?? e.message ?? 'unknown error'), secrets).slice(0, 200);
  if (e.code === 'EAUTH') {
    // The deployment's credentials, not the user's: a server-side problem.
    return new WeftError('The mail server refused the app’s SMTP credentials', { status: 502 });
  }
  if (typeof e.responseCode === 'number') {
    if (e.responseCode >= 400 && e.responseCode < 500) {
      return new TryLaterError(`The mail server deferred the message: ${detail}`);
    }
    return new ActionError(`The mail server refused the message: ${detail}`);
  }
  if (e.code === 'EENVELOPE' || e.code === 'EMESSAGE') {
    return new ActionError(`The message could not be sent: ${detail}`);
  }
  // ECONNECTION, ETIMEDOUT, ESOCKET, EDNS, ...: the server could not be reached or dropped us.
  return new TryLaterError(`The mail server could not be reached (${e.code ?? 'error'})`);
}
