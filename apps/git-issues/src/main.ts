import { startServer } from '@weft/core';
import { createGitIssuesApp } from './app.js';
import { CLIENT, startStandIn } from './demo-github.js';

for (const name of ['GITHUB_API_URL', 'GITHUB_URL']) {
  const value = process.env[name];
  if (value && !/^https?:\/\//.test(value)) {
    // Say what is wrong and stop, without a stack trace.
    console.error(`Git issues cannot start: ${name} must be an http(s) address`);
    process.exit(1);
  }
}

// The embedded default: with no GitHub configured (no API address, no OAuth client), the app
// talks to a demo GitHub in this process, so it runs with no set-up.
const configured = process.env.GITHUB_API_URL || process.env.OAUTH2_CLIENT_ID;
// Demo mode: its authorize page approves at once, so `pnpm start` can sign in without a person.
// A real GitHub signs webhook events with GITHUB_WEBHOOK_SECRET; without it no event could be
// told from a forged one, so the app refuses to start (the demo GitHub has a secret of its own).
if (configured && !process.env.GITHUB_WEBHOOK_SECRET) {
  console.error(
    'Git issues cannot start: GITHUB_WEBHOOK_SECRET must be set (the secret GitHub signs webhook events with)',
  );
  process.exit(1);
}
const demo = configured ? undefined : await startStandIn(0, { autoApprove: true });
if (demo)
  console.log(
    `Git issues uses the demo GitHub at ${demo.url} (set OAUTH2_CLIENT_ID and friends for the real one)`,
  );
const running = await startServer(
  createGitIssuesApp(
    demo
      ? {
          apiUrl: demo.url,
          webUrl: demo.url,
          clientId: CLIENT.id,
          clientSecret: CLIENT.secret,
          webhookSecret: process.env.GITHUB_WEBHOOK_SECRET || 'demo-webhook-secret',
        }
      : {},
  ),
  { defaultPort: 3106 },
);
running.server.on('close', () => void demo?.close());
