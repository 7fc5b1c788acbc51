// A real SMTP server on 127.0.0.1 (the smtp-server package) that records every delivered
// message, checks a login, and refuses or defers recipients of chosen domains.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Delivered {
  from: string;
  to: string[];
  raw: string;
  user: string | undefined;
}

export interface SmtpSink {
  port: number;
  /** `smtp://user:pass@127.0.0.1:<port>` for the given login. */
  url(user?: string, pass?: string): URL;
  delivered: Delivered[];
  close(): Promise<void>;
}

export const SMTP_USER = 'mailer';
export const SMTP_PASSWORD = 'pa55-w0rd!s3cret';

export async function startSmtpSink(): Promise<SmtpSink> {
  const delivered: Delivered[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD)
        callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith('@refused.example')) {
        return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      }
      if (address.address.endsWith('@busy.example')) {
        return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        delivered.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: (user = SMTP_USER, pass = SMTP_PASSWORD) =>
      new URL(`smtp://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`),
    delivered,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
