// The deployment's settings, from the environment, checked once at start-up with zod so that a
// misconfigured deployment fails to start instead of failing every action.
import { NamespaceSchema } from '@weft/client';
import { z } from 'zod';
import type { WorkspaceTarget } from './save-entity.js';

export interface DispatchConfig {
  /** `smtp://user:pass@host:587` or `smtps://...:465`; unset: messages go to the log only. */
  smtpUrl?: URL;
  /** The sender of every e-mail, e.g. `Dispatch <dispatch@example.com>`. */
  mailFrom: string;
  /** When set, accounts must give this token (the descriptor asks for it). */
  token?: string;
  /** Allow `http-request` to reach loopback, private and link-local addresses; default false. */
  allowPrivateNetworks: boolean;
  /** The workspace `save-entity` writes to (`WORKSPACE_URL`, `WORKSPACE_TOKEN`); unset: that action answers 400. */
  workspace?: WorkspaceTarget;
}

export const DEFAULT_FROM = 'Dispatch <dispatch@localhost>';

const envSchema = z.object({
  SMTP_URL: z
    .string()
    .trim()
    .optional()
    .transform((value, ctx) => {
      if (!value) return undefined;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        // Never echo the value: it holds the SMTP password.
        ctx.addIssue({ code: 'custom', message: 'SMTP_URL is not a URL' });
        return z.NEVER;
      }
      if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
        ctx.addIssue({
          code: 'custom',
          message: `SMTP_URL must be smtp:// or smtps://, not ${url.protocol}//`,
        });
        return z.NEVER;
      }
      return url;
    }),
  MAIL_FROM: z.string().trim().min(3).optional(),
  DISPATCH_TOKEN: z
    .string()
    .trim()
    .min(16, 'DISPATCH_TOKEN must be at least 16 characters')
    .optional()
    .or(z.literal('').transform(() => undefined)),
  HTTP_ALLOW_PRIVATE: z.enum(['true', 'false', '1', '0', '']).optional(),
  WORKSPACE_URL: z
    .string()
    .trim()
    .optional()
    .refine(
      (value) => !value || /^https?:\/\/[^\s]+$/.test(value),
      'WORKSPACE_URL must be an http(s) address',
    ),
  WORKSPACE_TOKEN: z.string().trim().optional(),
  // `fibery` when WORKSPACE_URL is the real service; weft's local workspace speaks svc by default
  WORKSPACE_NAMESPACE: NamespaceSchema.optional().or(z.literal('').transform(() => undefined)),
});

/** Reads the configuration; throws an Error whose message names the bad variable (never a secret). */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): DispatchConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
  const {
    SMTP_URL,
    MAIL_FROM,
    DISPATCH_TOKEN,
    HTTP_ALLOW_PRIVATE,
    WORKSPACE_URL,
    WORKSPACE_TOKEN,
    WORKSPACE_NAMESPACE,
  } = parsed.data;
  if (Boolean(WORKSPACE_URL) !== Boolean(WORKSPACE_TOKEN)) {
    throw new Error('WORKSPACE_URL and WORKSPACE_TOKEN go together: set both, or neither');
  }
  return {
    ...(SMTP_URL ? { smtpUrl: SMTP_URL } : {}),
    mailFrom: MAIL_FROM ?? DEFAULT_FROM,
    ...(DISPATCH_TOKEN ? { token: DISPATCH_TOKEN } : {}),
    allowPrivateNetworks: HTTP_ALLOW_PRIVATE === 'true' || HTTP_ALLOW_PRIVATE === '1',
    ...(WORKSPACE_URL && WORKSPACE_TOKEN
      ? {
          workspace: {
            url: WORKSPACE_URL,
            token: WORKSPACE_TOKEN,
            ...(WORKSPACE_NAMESPACE ? { namespace: WORKSPACE_NAMESPACE } : {}),
          },
        }
      : {}),
  };
}
