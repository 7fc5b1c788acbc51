import type { Logger } from '../logging/logger.js';

/** An argument of an action. All argument values are strings. */
export interface ActionArgDefinition<O extends boolean = boolean> {
  readonly type: 'text' | 'textarea';
  readonly name: string;
  readonly description?: string;
  /** The service fills `{{Field}}` templates before sending. */
  readonly textTemplateSupported?: boolean;
  /** Not on the wire: core lets a missing value through instead of answering 400. */
  readonly optional: O;
}

interface ArgOptions {
  name: string;
  description?: string;
  /** Supports `{{Field Name}}` templates. */
  template?: boolean;
}

interface ArgBuilder {
  (options: ArgOptions & { optional: true }): ActionArgDefinition<true>;
  (options: ArgOptions & { optional?: false }): ActionArgDefinition<false>;
}

function argBuilder(type: 'text' | 'textarea'): ArgBuilder {
  return ((o: ArgOptions & { optional?: boolean }) => ({
    type,
    name: o.name,
    ...(o.description === undefined ? {} : { description: o.description }),
    ...(o.template === undefined ? {} : { textTemplateSupported: o.template }),
    optional: o.optional ?? false,
  })) as ArgBuilder;
}

/** Builders for action arguments; the key in `args` is the argument id. */
export const arg = { text: argBuilder('text'), textarea: argBuilder('textarea') } as const;

export type ActionArgs = Record<string, ActionArgDefinition>;

/** The inferred `args` object of an action. */
export type ArgValues<G> = {
  -readonly [K in keyof G as G[K] extends ActionArgDefinition<false> ? K : never]: string;
} & {
  -readonly [K in keyof G as G[K] extends ActionArgDefinition<true> ? K : never]?: string;
};

export interface ActionContext<A, G> {
  account: A;
  args: ArgValues<G>;
  signal: AbortSignal;
  log: Logger;
}

/** An action automations can run. Throw `ActionError` (or any WeftError) to report failure. */
export interface ActionDefinition<G extends ActionArgs, A> {
  name: string;
  description?: string;
  args: G;
  run: (ctx: ActionContext<A, G>) => Promise<void> | void;
}
