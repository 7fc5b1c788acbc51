import type { Principal } from '../auth/principal.js';
import type { RequestBudgets } from './budgets.js';
import type { Queryable } from '../db/driver.js';
import type { Catalog } from '../schema/catalog.js';
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
   * Relation fields deleted with their partner in this transaction (`<holder> <name>`): deleting
   * one of them again is done (schema.field/delete).
   */
  removedPartners?: Set<string>;
  /**
   * Set for the last run of creates of a top-level svc.command/batch: after it the command only
   * checks its listeners (from `listening`) and commits, so a bulk create may commit with its
   * last statement when nothing listens.
   */
  endsCommand?: boolean;
  /**
   * A catalog not yet checked in this transaction (the last one loaded), for the first run of
   * creates of a top-level batch: its first statement checks the schema token along with its own
   * work, which saves the round trip of loadCatalog's check. Absent when the command is retried
   * after that check failed (StaleCatalog).
   */
  unchecked?: Catalog;
  /**
   * Set for a run of creates that is the whole of a top-level batch answered over HTTP: its
   * results are the command's result, and their JSON text may be made ahead (answer-json.ts), in
   * the shape a batch is answered in (result-shape.ts).
   */
  answerJson?: boolean;
  /**
   * false: the caller reads no per-row results of creates and updates (a sync writing pages).
   * Creates of a type nothing listens to then answer null and build neither a result nor an effect
   * per row (there is nobody to deliver it to); where something listens, everything is built as
   * usual. Updates answer null; their effects are recorded where something listens, as always.
   */
  createResults?: false;
  /** the request's bounds on what a query may ask (absent for in-process callers) */
  budgets?: RequestBudgets;
  /**
   * Long runs of creates check every row before their COPY starts, instead of checking rows while
   * the database takes the ones before (set when the command is run again after RowsNotExact).
   */
  checkFirst?: boolean;
  /**
   * Runs of updates, deletes and collection changes are made one command at a time, not together
   * (set when the command is run again after RunAgainOneByOne).
   */
  oneByOne?: boolean;
}

/**
 * The catalog a command used without checking it (CommandContext.unchecked) was not the current
 * one: the command is run again, checking its catalog as usual. Its transaction may have failed
 * (a table of the old catalog may be gone), so it is never caught inside a transaction.
 */
export class StaleCatalog extends Error {
  constructor() {
    super('The schema changed while the command was prepared');
    this.name = 'StaleCatalog';
  }
}

/**
 * A row of a long run of creates, checked while its COPY was under way, would print differently in
 * the database than it reads (created-result.ts), so the run's results cannot be built here: the
 * COPY is abandoned and the command runs again with every row checked first (checkFirst). Like
 * StaleCatalog it fails its transaction and is never caught inside one.
 */
export class RowsNotExact extends Error {
  constructor() {
    super('A created row prints differently in the database');
    this.name = 'RowsNotExact';
  }
}

/**
 * A run of commands made together (updates, deletes, collection changes: entities/command-runs.ts)
 * failed after some of its changes were made: the database refused a value, or an entity turned
 * out missing. Which command fails first in order is known only one at a time. The transaction
 * holds changes it must not keep, so like StaleCatalog this is never caught inside one: the command
 * runs again with oneByOne.
 */
export class RunAgainOneByOne extends Error {
  constructor() {
    super('A run of commands made together failed');
    this.name = 'RunAgainOneByOne';
  }
}
