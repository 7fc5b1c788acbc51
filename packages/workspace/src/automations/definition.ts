import { z } from 'zod';
import { isSchemaName } from '../schema/schema-store.js';

// What an automation is. A rule runs when an entity of `type` is created or updated (optionally
// only when `field` changed); a button runs when a user chooses entities and presses it. Either
// runs an external-action app's action with text-template arguments, or a script.

export const appAction = z.object({
  kind: z.literal('app'),
  /** the external-action app's address */
  url: z.url({ protocol: /^https?$/ }),
  action: z.string().min(1),
  /** text templates: {{Field}} and {{Relation.Field}} are filled from the entity */
  args: z.record(z.string(), z.string()).default({}),
  /** the app account's fields; stored sealed with the automation, never shown by the page or API */
  account: z.record(z.string(), z.unknown()).default({}),
});

export const scriptAction = z.object({
  kind: z.literal('script'),
  code: z.string().min(1).max(200_000),
  /** hard time limit of one run; default 5 s, at most 60 s */
  timeoutMs: z.number().int().min(50).max(60_000).optional(),
});

export const automationInput = z
  .object({
    name: z.string().min(1).max(200),
    trigger: z.enum(['created', 'updated', 'button']),
    type: z.string().refine(isSchemaName, 'a type name <app>/<name>'),
    field: z.string().min(1).optional(),
    action: z.discriminatedUnion('kind', [appAction, scriptAction]),
    enabled: z.boolean().default(true),
  })
  .refine((a) => a.field === undefined || a.trigger === 'updated', {
    message: 'field applies to updated rules only',
  });

export type AutomationInput = z.input<typeof automationInput>;
export type Automation = z.output<typeof automationInput> & { id: string };
export type AppAction = z.output<typeof appAction>;
export type ScriptAction = z.output<typeof scriptAction>;

/** An automation as the API shows it: the app account is left out. */
export function publicAutomation(a: Automation) {
  const { action, ...rest } = a;
  if (action.kind === 'app') {
    // A stored action names its account's fields (the account itself is sealed apart).
    const { account, accountFields, ...shown } = action as AppAction & { accountFields?: string[] };
    return { ...rest, action: { ...shown, accountFields: accountFields ?? Object.keys(account) } };
  }
  return { ...rest, action };
}
