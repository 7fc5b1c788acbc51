// Git issues: a sample integration app for GitHub (or GitHub Enterprise) over OAuth 2. It syncs
// repositories, issues and pull requests, follows GitHub's own paging (Link headers) and rate
// limits (X-RateLimit-*), syncs changes by `since`, and takes live updates from repository
// webhooks signed with X-Hub-Signature-256.
import {
  BadRequestError,
  InvalidAccountError,
  InvalidFilterError,
  auth,
  defineApp,
  field,
  input,
  remove,
  resume,
  type TransformResult,
  verifyHmacSignature,
} from '@weft/core';
import { z } from 'zod';
import { DEFAULT_API_URL, DEFAULT_WEB_URL, github } from './github.js';
import {
  type Issue,
  type Repository,
  issueItem,
  issueSchema,
  pullRequestItem,
  repositoryItem,
  repositorySchema,
} from './payloads.js';

export interface GitIssuesOptions {
  /** The REST API; default https://api.github.com (GitHub Enterprise: https://host/api/v3). */
  apiUrl?: string;
  /** Where OAuth happens; default https://github.com. */
  webUrl?: string;
  /** The OAuth client; default the OAUTH2_CLIENT_ID / OAUTH2_CLIENT_SECRET variables. */
  clientId?: string;
  clientSecret?: string;
  /** The secret GitHub signs webhook events with; default GITHUB_WEBHOOK_SECRET. */
  webhookSecret?: string;
  /** Items per page sent to the service; default 500. */
  pageSize?: number;
}

const PER_PAGE = 100;
const EVENTS = ['issues', 'pull_request'] as const;
const ISSUE_STATES = [
  { name: 'Open', default: true },
  { name: 'Closed', final: true },
];
const PULL_STATES = [
  { name: 'Open', default: true },
  { name: 'Draft' },
  { name: 'Merged', final: true },
  { name: 'Closed' },
];

/**
 * Where a sync of issues or pull requests stopped: the repository, GitHub's next link in it, and
 * the repositories still to read.
 */
const cursorSchema = z.object({ repo: z.string(), next: z.string().optional(), rest: z.array(z.string()) });

const issueFields = {
  id: field.id(),
  name: field.title({ name: 'Title' }),
  number: field.integer(),
  repository: field.relation({ to: 'repository', cardinality: 'many-to-one', targetName: 'Issues' }),
  state: field.workflow({ options: ISSUE_STATES }),
  body: field.markdown(),
  url: field.url({ name: 'URL' }),
  author: field.text(),
  labels: field.multiSelect(),
  assignees: field.textArray(),
  comments: field.integer(),
  createdAt: field.date({ name: 'Created At' }),
  updatedAt: field.date({ name: 'Updated At' }),
  closedAt: field.date({ name: 'Closed At' }),
};

export function createGitIssuesApp(options: GitIssuesOptions = {}) {
  const apiUrl = options.apiUrl ?? process.env.GITHUB_API_URL ?? DEFAULT_API_URL;
  const webUrl = options.webUrl ?? process.env.GITHUB_URL ?? DEFAULT_WEB_URL;
  const webhookSecret = () => options.webhookSecret ?? process.env.GITHUB_WEBHOOK_SECRET ?? '';

  /** The repositories to sync: the filter's, else every repository the user can read. */
  async function repositories(
    api: ReturnType<typeof github>,
    wanted: readonly string[] | undefined,
  ): Promise<Repository[]> {
    const all: Repository[] = [];
    let next: string | undefined = '/user/repos';
    let query: Record<string, string | number> | undefined = { per_page: PER_PAGE, sort: 'full_name' };
    while (next) {
      const page: { items: unknown[]; next?: string } = await api.page(next, query);
      all.push(...page.items.map((r) => repositorySchema.parse(r)));
      next = page.next;
      query = undefined;
    }
    if (!wanted || wanted.length === 0) return all;
    const unknown = wanted.filter((w) => !all.some((r) => r.full_name === w));
    if (unknown.length > 0)
      throw new InvalidFilterError(`Filter "repositories": no access to ${unknown.join(', ')}`);
    return all.filter((r) => wanted.includes(r.full_name));
  }

  /** Issues or pull requests of the selected repositories, one upstream page at a time. */
  async function* issuesOf(
    kind: 'issue' | 'pull_request',
    ctx: {
      account: { access_token: string };
      filter: { repositories?: string[] | undefined };
      cursor: unknown;
      since: Date | null;
      signal: AbortSignal;
    },
  ) {
    const api = github({ apiUrl, token: ctx.account.access_token, signal: ctx.signal });
    // The repositories are listed once per sync: later pages read the rest from the cursor, so
    // each page costs GitHub's rate budget only the issue pages it reads.
    let repos: string[];
    let start = 0;
    let next: string | undefined;
    if (ctx.cursor === undefined) {
      repos = (await repositories(api, ctx.filter.repositories)).map((r) => r.full_name);
    } else {
      const parsed = cursorSchema.safeParse(ctx.cursor);
      if (!parsed.success) throw new BadRequestError('The page cursor is not one this app produced');
      repos = [parsed.data.repo, ...parsed.data.rest];
      next = parsed.data.next;
      if (next === undefined) start = 1;
    }
    for (let i = start; i < repos.length; i++) {
      const repo = repos[i]!;
      let url: string | undefined = next ?? `/repos/${repo}/issues`;
      let query: Record<string, string | number | undefined> | undefined = next
        ? undefined
        : {
            state: 'all',
            sort: 'updated',
            direction: 'asc',
            per_page: PER_PAGE,
            since: ctx.since?.toISOString(),
          };
      next = undefined;
      while (url) {
        const page: { items: unknown[]; next?: string } = await api.page(url, query);
        const issues = page.items.map((raw) => issueSchema.parse(raw));
        yield issues
          .filter((issue) => (kind === 'pull_request') === Boolean(issue.pull_request))
          .map((issue) => (kind === 'issue' ? issueItem(repo, issue) : pullRequestItem(repo, issue)));
        url = page.next;
        query = undefined;
        const rest = repos.slice(i + 1);
        yield resume(url ? { repo, next: url, rest } : { repo, rest });
      }
    }
  }

  return defineApp({
    id: 'git-issues',
    name: 'Git issues',
    version: '1.0.0',
    description: 'Syncs GitHub repositories, issues and pull requests, with live updates by webhook.',
    website: 'https://github.com/weft/weft/tree/main/apps/git-issues',
    logo: {
      svg: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10" fill="#24292f"/><circle cx="12" cy="12" r="3" fill="#fff"/><path stroke="#fff" stroke-width="1.5" fill="none" d="M12 4v5m0 6v5"/></svg>',
    },
    authentication: [
      auth.oauth2({
        name: 'GitHub account',
        description: 'Sign in with GitHub',
        authorizeUrl: `${webUrl}/login/oauth/authorize`,
        tokenUrl: `${webUrl}/login/oauth/access_token`,
        scopes: ['repo', 'admin:repo_hook'],
        clientAuthentication: 'body',
        ...(options.clientId ? { clientId: options.clientId } : {}),
        ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
        account: async ({ accessToken, signal }) => {
          const me = await github({ apiUrl, token: accessToken, signal }).json<{ login: string; id: number }>(
            'GET',
            '/user',
          );
          return { name: me.login, accountId: String(me.id) };
        },
      }),
    ],
    pageSize: options.pageSize ?? 500,
    sync: {
      filters: {
        repositories: input.multidropdown({
          name: 'Repositories',
          description: 'Only these repositories (empty: every repository you can read)',
          datalist: true,
          optional: true,
        }),
      },
      datalists: {
        repositories: async ({ account, signal }) => {
          const api = github({ apiUrl, token: account.access_token, signal });
          return (await repositories(api, undefined)).map((r) => ({
            title: r.full_name,
            value: r.full_name,
          }));
        },
      },
      validateFilter: async ({ account, filter, signal }) => {
        if (filter.repositories && filter.repositories.length > 0) {
          await repositories(github({ apiUrl, token: account.access_token, signal }), filter.repositories);
        }
      },
      types: {
        repository: {
          name: 'Repositories',
          default: true,
          fields: {
            id: field.id({ name: 'Full Name' }),
            name: field.title(),
            description: field.text(),
            url: field.url({ name: 'URL' }),
            private: field.bool(),
            defaultBranch: field.text({ name: 'Default Branch' }),
            openIssues: field.integer({ name: 'Open Issues' }),
            updatedAt: field.date({ name: 'Updated At' }),
          },
          async *data({ account, filter, signal }) {
            const api = github({ apiUrl, token: account.access_token, signal });
            yield (await repositories(api, filter.repositories)).map(repositoryItem);
          },
        },
        issue: {
          name: 'Issues',
          default: true,
          delta: true,
          fields: issueFields,
          data: (ctx) => issuesOf('issue', ctx),
        },
        pull_request: {
          name: 'Pull requests',
          delta: true,
          fields: {
            ...issueFields,
            repository: field.relation({
              to: 'repository',
              cardinality: 'many-to-one',
              targetName: 'Pull Requests',
            }),
            state: field.workflow({ options: PULL_STATES }),
            draft: field.bool(),
            mergedAt: field.date({ name: 'Merged At' }),
          },
          data: (ctx) => issuesOf('pull_request', ctx),
        },
      },
      webhooks: {
        // One hook per repository would need one webhook id per repository; the protocol keeps
        // one per install, so live updates need exactly one repository in the filter.
        async install({ account, filter, webhook, url, signal }) {
          const repos = filter.repositories ?? [];
          if (repos.length !== 1) {
            throw new BadRequestError('Live updates need exactly one repository in the Repositories filter');
          }
          if (!url) throw new BadRequestError('The service sent no address for the webhook');
          if (!webhookSecret()) throw new BadRequestError('GITHUB_WEBHOOK_SECRET is not configured');
          const api = github({ apiUrl, token: account.access_token, signal });
          if (webhook) await uninstallHook(api, webhook.id);
          const hook = await api.json<{ id: number }>('POST', `/repos/${repos[0]}/hooks`, {
            name: 'web',
            active: true,
            events: EVENTS,
            config: { url, content_type: 'json', secret: webhookSecret(), insecure_ssl: '0' },
          });
          // The repository is the workspace preProcess names an event's deliveries by.
          return { id: `${repos[0]}#${hook.id}`, events: [...EVENTS], workspaceId: repos[0] };
        },
        async uninstall({ account, webhook, signal }) {
          await uninstallHook(github({ apiUrl, token: account.access_token, signal }), webhook.id);
        },
        // The service hands over GitHub's headers and the parsed body: check the signature over
        // the body (GitHub sends compact JSON) and name the hook that delivered it.
        async verify({ params, payload }) {
          const headers = lower(params);
          verifyHmacSignature({
            secret: webhookSecret(),
            rawBody: JSON.stringify(payload),
            signature: headers['x-hub-signature-256'],
            prefix: 'sha256=',
          });
          const hookId = headers['x-github-hook-id'];
          const repo = (payload as { repository?: { full_name?: string } })?.repository?.full_name;
          if (!hookId || !repo) throw new InvalidAccountError('Not a GitHub repository webhook event');
          return `${repo}#${hookId}`;
        },
        async transform({ params, payload }): Promise<TransformResult> {
          const event = lower(params)['x-github-event'];
          const body = payload as {
            action?: string;
            issue?: unknown;
            pull_request?: unknown;
            repository?: { full_name: string };
          };
          const repo = body.repository?.full_name;
          if (!repo) return {};
          if (event === 'issues' && body.issue) {
            const issue: Issue = issueSchema.parse(body.issue);
            return { issue: [body.action === 'deleted' ? remove(issue.id) : issueItem(repo, issue)] };
          }
          if (event === 'pull_request' && body.pull_request) {
            // A pull_request event carries the pull request, whose `merged_at` sits at the top.
            const pr = body.pull_request as Issue & { merged_at?: string | null };
            const issue = issueSchema.parse({ ...pr, pull_request: { merged_at: pr.merged_at ?? null } });
            return { pull_request: [pullRequestItem(repo, issue)] };
          }
          return {};
        },
        // The newer flow: the raw request, so the signature is checked over GitHub's exact bytes.
        // An unsigned or forged request is refused (WebhookSignatureError: 401); a signed one
        // concerns the workspace of its repository (install's `workspaceId`).
        async preProcess({ rawBody, headers }) {
          verifyHmacSignature({
            secret: webhookSecret(),
            rawBody,
            signature: headers['x-hub-signature-256'] as string | undefined,
            prefix: 'sha256=',
          });
          const event = JSON.parse(rawBody.toString('utf8')) as { repository?: { full_name?: string } };
          const repo = event.repository?.full_name;
          return { workspaceIds: repo === undefined ? [] : [repo] };
        },
      },
    },
  });
}

async function uninstallHook(api: ReturnType<typeof github>, webhookId: string): Promise<void> {
  const at = webhookId.lastIndexOf('#');
  if (at < 0) throw new BadRequestError(`Webhook id "${webhookId}" is not one this app installed`);
  await api.json('DELETE', `/repos/${webhookId.slice(0, at)}/hooks/${webhookId.slice(at + 1)}`);
}

function lower(params: Record<string, unknown>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(params).map(([k, v]) => [
      k.toLowerCase(),
      Array.isArray(v) ? String(v[0]) : v === undefined ? undefined : String(v),
    ]),
  );
}

export const gitIssuesApp = createGitIssuesApp();
export default gitIssuesApp;
