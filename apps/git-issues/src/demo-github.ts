// A local stand-in for GitHub (the embedded default, and what the tests record against): the REST
// endpoints the app calls, with GitHub's payload shapes,
// Link-header paging, X-RateLimit-* headers, the OAuth authorize page and token endpoint. Tests record their
// cassettes against it (WEFT_UPSTREAM=record) and replay them offline; the OAuth tests talk to it
// live (the token exchange does not go through the upstream client).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export const STAND_IN_PORT = 38_765;
export const STAND_IN_URL = `http://127.0.0.1:${STAND_IN_PORT}`;
/** Tokens the stand-in knows. `limited` has one request left in its hourly budget. */
export const TOKENS = {
  good: 'gho_standin_good',
  limited: 'gho_standin_limited',
  refreshed: 'gho_standin_refreshed',
};
export const REFRESH_TOKEN = 'ghr_standin_refresh';
export const CLIENT = { id: 'Iv1.standin', secret: 'standin-client-secret' };
/** The reset time the stand-in announces (fixed, so recordings do not change between runs). */
export const RATE_RESET = 4_102_444_800; // 2100-01-01

const OWNER = { login: 'octo-org', id: 9001, avatar_url: 'https://avatars.example/u/9001' };
const ME = { login: 'mona', id: 583231, name: 'Mona Lisa', avatar_url: 'https://avatars.example/u/583231' };

function repo(id: number, name: string, description: string, isPrivate: boolean) {
  return {
    id,
    node_id: `R_${id}`,
    name,
    full_name: `octo-org/${name}`,
    private: isPrivate,
    owner: OWNER,
    html_url: `https://github.example/octo-org/${name}`,
    description,
    fork: false,
    default_branch: 'main',
    open_issues_count: 0,
    created_at: '2024-02-01T10:00:00Z',
    updated_at: '2026-11-01T09:00:00Z',
    pushed_at: '2026-11-01T09:00:00Z',
    permissions: { admin: true, push: true, pull: true },
  };
}

export const REPOS = [
  repo(101, 'widgets', 'Widgets for everyone', false),
  repo(102, 'handbook', 'The team handbook', true),
];

const LABELS = ['bug', 'enhancement', 'docs', 'good first issue'];

/** 130 issues and pull requests in widgets (two pages of 100), 6 in handbook. */
function issuesOf(repoName: string, count: number, idBase: number) {
  return Array.from({ length: count }, (_, i) => {
    const n = i + 1;
    const isPull = n % 4 === 0;
    const closed = n % 3 === 0;
    const updated = new Date(Date.UTC(2026, 9, 1) + n * 3_600_000 * 5).toISOString().replace('.000', '');
    const base = {
      url: `${STAND_IN_URL}/repos/octo-org/${repoName}/issues/${n}`,
      repository_url: `${STAND_IN_URL}/repos/octo-org/${repoName}`,
      html_url: `https://github.example/octo-org/${repoName}/${isPull ? 'pull' : 'issues'}/${n}`,
      id: idBase + n,
      node_id: `I_${idBase + n}`,
      number: n,
      title: `${isPull ? 'Add' : 'Fix'} ${repoName} thing #${n}`,
      user: n % 2 ? ME : { login: 'hubot', id: 2, avatar_url: 'https://avatars.example/u/2' },
      labels: [{ id: n, name: LABELS[n % LABELS.length]!, color: 'ededed' }],
      state: closed ? 'closed' : 'open',
      locked: false,
      assignee: null,
      assignees: n % 5 === 0 ? [ME] : [],
      comments: n % 7,
      created_at: '2026-09-01T08:00:00Z',
      updated_at: updated,
      closed_at: closed ? updated : null,
      author_association: 'MEMBER',
      body: n % 6 === 0 ? null : `Steps to reproduce **${n}**:\n\n1. open\n2. look`,
    };
    return isPull
      ? {
          ...base,
          draft: n % 8 === 0 && !closed,
          pull_request: {
            url: `${STAND_IN_URL}/repos/octo-org/${repoName}/pulls/${n}`,
            html_url: base.html_url,
            merged_at: closed && n % 2 === 0 ? updated : null,
          },
        }
      : base;
  });
}

const ISSUES: Record<string, ReturnType<typeof issuesOf>> = {
  'octo-org/widgets': issuesOf('widgets', 130, 5_000_000),
  'octo-org/handbook': issuesOf('handbook', 6, 6_000_000),
};

export interface StandInOptions {
  /**
   * Demo mode: the authorize page approves at once, as GitHub does for a user who already
   * authorized the app, so a script can complete the sign-in by following redirects. Without
   * it the page asks, like GitHub's for a first sign-in (an Authorize button posting a form).
   */
  autoApprove?: boolean;
}

/** How long an issued authorization code works, once (GitHub: 10 minutes). */
const CODE_MS = 10 * 60_000;

export interface StandIn {
  url: string;
  /** Hooks created and not deleted, by repository. */
  hooks: Map<string, { id: number; config: Record<string, unknown>; events: string[] }>;
  close(): Promise<void>;
}

export async function startStandIn(port = STAND_IN_PORT, options: StandInOptions = {}): Promise<StandIn> {
  const hooks: StandIn['hooks'] = new Map();
  /** Codes issued by the authorize page: the callback they were issued for, and until when. */
  const codes = new Map<string, { redirectUri: string; expires: number }>();
  const budget = new Map<string, number>([[TOKENS.limited, 1]]);
  let nextHook = 7001;
  // Links point at the address the stand-in really listens on (set once it listens).
  let base = STAND_IN_URL;
  const server: Server = createServer(async (req, res) => {
    const body = await read(req);
    const url = new URL(req.url ?? '/', base);
    const send = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(json === undefined ? undefined : JSON.stringify(json));
    };

    if (url.pathname === '/login/oauth/authorize') {
      return authorizePage(req.method === 'POST' ? new URLSearchParams(body) : url.searchParams, req, res);
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      const form = new URLSearchParams(body);
      if (form.get('client_id') !== CLIENT.id || form.get('client_secret') !== CLIENT.secret) {
        return send(401, { error: 'incorrect_client_credentials' });
      }
      const grant = form.get('grant_type');
      const code = form.get('code') ?? '';
      const issued = codes.get(code);
      if (issued) codes.delete(code); // a code works once
      if (issued && form.has('redirect_uri') && form.get('redirect_uri') !== issued.redirectUri) {
        return send(400, {
          error: 'redirect_uri_mismatch',
          error_description: 'The redirect_uri MUST match the registered callback URL for this application.',
        });
      }
      if (
        grant === 'authorization_code' &&
        (code === 'good-code' || (issued !== undefined && issued.expires > Date.now()))
      ) {
        return send(200, {
          access_token: TOKENS.good,
          refresh_token: REFRESH_TOKEN,
          expires_in: 28_800,
          token_type: 'bearer',
          scope: 'repo,admin:repo_hook',
        });
      }
      if (grant === 'refresh_token' && form.get('refresh_token') === REFRESH_TOKEN) {
        return send(200, {
          access_token: TOKENS.refreshed,
          refresh_token: REFRESH_TOKEN,
          expires_in: 28_800,
          token_type: 'bearer',
          scope: 'repo,admin:repo_hook',
        });
      }
      return send(400, {
        error: 'bad_verification_code',
        error_description: 'The code passed is incorrect or expired.',
      });
    }

    const token = /^(?:Bearer|token) (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !Object.values(TOKENS).includes(token)) {
      return send(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    }
    const left = budget.get(token) ?? 4999;
    if (left <= 0) {
      return send(403, { message: 'API rate limit exceeded for user ID 583231.' }, rateHeaders(0));
    }
    budget.set(token, left - 1);
    const rate = rateHeaders(left - 1);

    if (url.pathname === '/user' && req.method === 'GET') return send(200, ME, rate);
    if (url.pathname === '/user/repos' && req.method === 'GET') return send(200, REPOS, rate);
    const issues = /^\/repos\/([^/]+\/[^/]+)\/issues$/.exec(url.pathname);
    if (issues && req.method === 'GET') {
      const list = ISSUES[issues[1]!];
      if (!list) return send(404, { message: 'Not Found' }, rate);
      const since = url.searchParams.get('since');
      const rows = list
        .filter((i) => !since || i.updated_at >= since)
        .sort((a, b) => a.updated_at.localeCompare(b.updated_at));
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const slice = rows.slice((page - 1) * perPage, page * perPage);
      const links: string[] = [];
      if (page * perPage < rows.length) {
        const next = new URL(url);
        next.searchParams.set('page', String(page + 1));
        links.push(`<${next}>; rel="next"`);
        const last = new URL(url);
        last.searchParams.set('page', String(Math.ceil(rows.length / perPage)));
        links.push(`<${last}>; rel="last"`);
      }
      return send(200, slice, links.length ? { ...rate, link: links.join(', ') } : rate);
    }
    const hooksPath = /^\/repos\/([^/]+\/[^/]+)\/hooks(?:\/(\d+))?$/.exec(url.pathname);
    if (hooksPath && req.method === 'POST' && !hooksPath[2]) {
      const input = JSON.parse(body) as { config: Record<string, unknown>; events: string[] };
      const hook = { id: nextHook++, config: input.config, events: input.events };
      hooks.set(hooksPath[1]!, hook);
      const { secret: _secret, ...config } = input.config;
      return send(
        201,
        {
          type: 'Repository',
          id: hook.id,
          name: 'web',
          active: true,
          events: hook.events,
          config: { ...config, secret: '********' },
        },
        rate,
      );
    }
    if (hooksPath && req.method === 'DELETE' && hooksPath[2]) {
      const hook = hooks.get(hooksPath[1]!);
      if (!hook || String(hook.id) !== hooksPath[2]) return send(404, { message: 'Not Found' }, rate);
      hooks.delete(hooksPath[1]!);
      res.writeHead(204, rate);
      return res.end();
    }
    return send(404, { message: 'Not Found' }, rate);
  });
  /**
   * GitHub's authorize page: an unknown client is a 404, a missing or odd redirect_uri a 400;
   * approving sends the browser to redirect_uri with a one-time `code` and the `state`,
   * declining with `error=access_denied`.
   */
  function authorizePage(params: URLSearchParams, req: IncomingMessage, res: ServerResponse) {
    const page = (status: number, html: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Authorize application</title>${html}`);
    };
    if (params.get('client_id') !== CLIENT.id) return page(404, '<h1>Not Found</h1>');
    const redirectUri = params.get('redirect_uri') ?? '';
    let target: URL;
    try {
      target = new URL(redirectUri);
      if (!/^https?:$/.test(target.protocol)) throw new Error('not http');
    } catch {
      return page(400, '<h1>The redirect_uri is not valid for this application.</h1>');
    }
    const state = params.get('state');
    if (state !== null) target.searchParams.set('state', state);
    const decided = req.method === 'POST' ? params.get('authorize') : options.autoApprove ? '1' : null;
    if (decided === '1') {
      const code = randomBytes(10).toString('hex');
      codes.set(code, { redirectUri, expires: Date.now() + CODE_MS });
      target.searchParams.set('code', code);
    } else if (decided !== null) {
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_description', 'The user has denied your application access.');
    } else {
      const hidden = ['client_id', 'redirect_uri', 'scope', 'state']
        .filter((name) => params.has(name))
        .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(params.get(name)!)}">`)
        .join('');
      return page(
        200,
        `<h1>Authorize the app</h1><p>It asks for: ${escapeHtml(params.get('scope') ?? '(no scope)')}</p>` +
          `<form method="post" action="/login/oauth/authorize">${hidden}` +
          '<button name="authorize" value="1">Authorize</button> <button name="authorize" value="0">Cancel</button></form>',
      );
    }
    res.writeHead(302, { location: target.toString() });
    res.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;
  return {
    url: base,
    hooks,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function rateHeaders(remaining: number): Record<string, string> {
  return {
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-used': String(5000 - remaining),
    'x-ratelimit-reset': String(RATE_RESET),
    'x-ratelimit-resource': 'core',
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

export { ISSUES };
