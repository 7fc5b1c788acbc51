// `pnpm fuzz [runs] [--seed <n>] [--app <id>]`: the attack test of CI with any number of cases
// and a random seed (printed, so a failure can be replayed with `--seed`). Fuzzes the
// kitchen-sink core app and every sample app.
import { fuzzApp } from '../packages/core/src/testing/index.js';
import { KITCHEN_TOKEN, kitchenSinkApp } from '../packages/core/test/fixtures/kitchen-sink.js';
import { bookshelfApp } from '../apps/bookshelf/src/app.js';
import { createChatNotifyApp } from '../apps/chat-notify/src/app.js';
import { startChatServer } from '../apps/chat-notify/test/chat-server.js';

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const runs = Number(
  args.find((a) => /^\d+$/.test(a) && args[args.indexOf(a) - 1]?.startsWith('--') !== true) ?? 20_000,
);
const seed =
  option('--seed') === undefined
    ? (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 0
    : Number(option('--seed'));
const only = option('--app');
console.log(`fuzz: ${runs} cases per app, seed ${seed} (replay: pnpm fuzz ${runs} --seed ${seed})`);

const chat = await startChatServer();
const targets = [
  {
    id: 'kitchen-sink',
    app: kitchenSinkApp(),
    accounts: [{ token: KITCHEN_TOKEN }, { access_token: 'at-1' }],
  },
  { id: 'bookshelf', app: bookshelfApp, accounts: [{}] },
  {
    id: 'chat-notify',
    app: createChatNotifyApp({ backoffMs: 1 }),
    accounts: [
      { webhookUrl: `${chat.url}/hooks/T1/B2/fuzzSecret` },
      { webhookUrl: `${chat.url}/x`, token: 'tok-fuzz-1' },
    ],
  },
];
let failed = false;
for (const target of targets) {
  if (only && target.id !== only) continue;
  const started = Date.now();
  try {
    const report = await fuzzApp(target.app, { runs, seed, accounts: target.accounts });
    chat.received.length = 0;
    console.log(
      `fuzz ${target.id}: ${report.cases} in process + ${report.socketCases} over a socket in ${((Date.now() - started) / 1000).toFixed(1)} s, statuses ${JSON.stringify(report.statuses)}`,
    );
  } catch (error) {
    failed = true;
    console.error((error as Error).message);
  }
}
await chat.close();
process.exit(failed ? 1 : 0);
