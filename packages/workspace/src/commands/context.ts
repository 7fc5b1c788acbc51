import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../db/driver.js';
import type { Listening } from './listeners.js';

/** A change a command made to an entity; webhooks deliver these. */
export interface Effect {
  effect: string;
  id: string;
  type: string;
  [key: string]: unknown;
}

/** What every command handler gets: the open transaction, who acts, and where effects go. */
export interface CommandContext {
  tx: Queryable;
  user: Principal;
  effects: Effect[];
  /** nesting depth: 0 for a top-level command, more inside svc.command/batch */
  depth: number;
  /** what listens to each type, as already looked up in this transaction (see listeners.ts) */
  listening?: Map<string, Listening>;
  /**
   * Set for the last run of creates of a top-level svc.command/batch: after it the command only
   * checks its listeners (from `listening`) and commits, so a bulk create may commit with its
   * last statement when nothing listens.
   */
  endsCommand?: boolean;
  /**
   * false: the caller reads no per-row results of creates (a sync writing pages). Creates of a type
   * nothing listens to then answer null and build neither a result nor an effect per row (there
   * is nobody to deliver it to); where something listens, everything is built as usual.
   */
  createResults?: false;
}
