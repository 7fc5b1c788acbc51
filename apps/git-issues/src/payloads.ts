// The parts of GitHub's payloads the app reads (REST API v3 and webhook events), and how they
// become items. Issues and pull requests come from the same list endpoint: a pull request is an
// issue with a `pull_request` key.
import { z } from 'zod';

const user = z.looseObject({ login: z.string(), id: z.number(), avatar_url: z.string().optional() });

export const repositorySchema = z.looseObject({
  id: z.number(),
  full_name: z.string(),
  description: z.string().nullable().optional(),
  html_url: z.string(),
  private: z.boolean(),
  default_branch: z.string().optional(),
  open_issues_count: z.number().optional(),
  updated_at: z.string().nullable().optional(),
});
export type Repository = z.infer<typeof repositorySchema>;

export const issueSchema = z.looseObject({
  id: z.number(),
  number: z.number(),
  title: z.string(),
  body: z.string().nullable().optional(),
  state: z.enum(['open', 'closed']),
  html_url: z.string(),
  user: user.nullable(),
  labels: z.array(z.union([z.string(), z.looseObject({ name: z.string() })])).default([]),
  assignees: z.array(user).nullable().optional(),
  comments: z.number().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  closed_at: z.string().nullable().optional(),
  draft: z.boolean().optional(),
  pull_request: z.looseObject({ merged_at: z.string().nullable().optional() }).optional(),
});
export type Issue = z.infer<typeof issueSchema>;

export function repositoryItem(repo: Repository) {
  return {
    id: repo.full_name,
    name: repo.full_name,
    description: repo.description ?? null,
    url: repo.html_url,
    private: repo.private,
    defaultBranch: repo.default_branch ?? null,
    openIssues: repo.open_issues_count ?? null,
    updatedAt: repo.updated_at ?? null,
  };
}

const common = (repo: string, issue: Issue) => ({
  id: issue.id,
  name: issue.title,
  number: issue.number,
  repository: repo,
  state: issue.state === 'open' ? 'Open' : 'Closed',
  body: issue.body ?? null,
  url: issue.html_url,
  author: issue.user?.login ?? null,
  labels: issue.labels.map((l) => (typeof l === 'string' ? l : l.name)),
  assignees: (issue.assignees ?? []).map((a) => a.login),
  comments: issue.comments ?? null,
  createdAt: issue.created_at,
  updatedAt: issue.updated_at,
  closedAt: issue.closed_at ?? null,
});

export function issueItem(repo: string, issue: Issue) {
  return common(repo, issue);
}

export function pullRequestItem(repo: string, issue: Issue) {
  const mergedAt = issue.pull_request?.merged_at ?? null;
  return {
    ...common(repo, issue),
    state: mergedAt ? 'Merged' : issue.state === 'open' ? (issue.draft ? 'Draft' : 'Open') : 'Closed',
    draft: issue.draft ?? false,
    mergedAt,
  };
}
