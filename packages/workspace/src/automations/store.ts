import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { Effect } from '../commands/context.js';
import type { Driver, Queryable } from '../db/driver.js';
import { badRequest, notFound } from '../errors.js';
import { jobQueueOf, sendInTransaction } from '../jobs/job-queue.js';
import { loadCatalog } from '../schema/catalog.js';
import type { SecretBox } from '../host/secret-box.js';
import { automationBox } from './account-box.js';
import type { z } from 'zod';
import { type Automation, automationInput } from './definition.js';

type Row = Record<string, unknown>;

/** The queue of automation runs (in the workspace's job queue); a job names its run row. */
export const AUTOMATION_RUN = 'weft-automation-run';
export interface AutomationRunJob {
  runId: string;
}

/**
 * A stored automation. An app action's account is sealed in `account_enc` and opened only when
 * `box` is given (to run it); otherwise it reads as `{}`, with `accountFields` naming its fields.
 */
function toAutomation(r: Row, box: SecretBox | undefined): Automation {
  let action = r.action as Automation['action'];
  if (action.kind === 'app') {
    const sealed = typeof r.account_enc === 'string' ? r.account_enc : undefined;
    // A row written before accounts were sealed holds its account in `action` (sealed on next read).
    const account = sealed ? (box ? box.open(sealed) : {}) : (action.account ?? {});
    action = { ...action, account };
  }
  return {
    id: String(r.id),
    name: String(r.name),
    trigger: r.trigger as Automation['trigger'],
    type: String(r.type_name),
    ...(r.field ? { field: String(r.field) } : {}),
    action,
    enabled: r.enabled === true,
  };
}

const fromRow = (r: Row): Automation => toAutomation(r, undefined);

function boxOf(q: Queryable): SecretBox {
  const box = automationBox(q);
  if (!box) throw new Error('The workspace has no key to seal automation accounts');
  return box;
}

/** The `action` column: an app action without its account, which is sealed apart. */
function storedAction(action: Automation['action']): Row {
  if (action.kind !== 'app') return action;
  const { account, ...rest } = action;
  return { ...rest, accountFields: Object.keys(account) };
}

/** Seals the accounts of rows stored before accounts were sealed (once; later reads find none). */
async function sealLegacy(q: Queryable, rows: Row[]): Promise<void> {
  for (const r of rows) {
    const action = r.action as Row;
    if (r.account_enc || action.kind !== 'app' || !('account' in action)) continue;
    const account = (action.account ?? {}) as Row;
    const sealed = boxOf(q).seal(account);
    const stripped = storedAction({ ...action, account } as Automation['action']);
    await q.query(
      `UPDATE weft_automations SET account_enc = $2, action = $3::jsonb WHERE id = $1 AND account_enc IS NULL`,
      [r.id, sealed, JSON.stringify(stripped)],
    );
    r.account_enc = sealed;
    r.action = stripped;
  }
}

/** The input checked: its shape, and its field against its type when the type exists. */
async function checkedInput(q: Queryable, input: unknown): Promise<z.output<typeof automationInput>> {
  const parsed = automationInput.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw badRequest(`${issue.path.join('.') || 'automation'}: ${issue.message}`, 'invalid-args');
  }
  const a = parsed.data;
  // A rule may name a type its app's first sync has not created yet; a known type is checked.
  const catalog = await loadCatalog(q);
  const type = catalog.findType(a.type);
  if (type && a.field) catalog.field(type, a.field);
  return a;
}

export async function createAutomation(q: Queryable, input: unknown): Promise<Automation> {
  const a = await checkedInput(q, input);
  const id = randomUUID();
  const sealed = a.action.kind === 'app' ? boxOf(q).seal(a.action.account) : null;
  await q.query(
    `INSERT INTO weft_automations (id, name, trigger, type_name, field, action, enabled, account_enc)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8)`,
    [id, ...storedColumns(a, sealed)],
  );
  return { ...a, id };
}

/** An automation's stored columns after its id: name, trigger, type, field, action, enabled, account. */
function storedColumns(a: z.output<typeof automationInput>, sealed: string | null): unknown[] {
  return [
    a.name,
    a.trigger,
    a.type,
    a.field ?? null,
    JSON.stringify(storedAction(a.action)),
    a.enabled,
    sealed,
  ];
}

/** Every automation, app accounts left sealed (`account` reads `{}`). */
export async function listAutomations(q: Queryable): Promise<Automation[]> {
  const { rows } = await q.query<Row>(`SELECT * FROM weft_automations ORDER BY created_at, id`);
  await sealLegacy(q, rows);
  return rows.map(fromRow);
}

/** One automation with its app account opened, to run it (`q` must be the workspace's driver). */
export async function getAutomation(q: Queryable, id: string): Promise<Automation | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const { rows } = await q.query<Row>(`SELECT * FROM weft_automations WHERE id = $1`, [id]);
  if (!rows[0]) return undefined;
  await sealLegacy(q, rows);
  return toAutomation(rows[0], rows[0].account_enc ? boxOf(q) : undefined);
}

/**
 * Replaces an automation's definition (its runs stay). An app action given without an account
 * (`keepAccount`) keeps the sealed one, so an edit need not show or retype the secret.
 */
export async function updateAutomation(
  q: Queryable,
  id: string,
  input: unknown,
  options: { keepAccount?: boolean } = {},
): Promise<Automation> {
  const before = await getAutomation(q, id);
  if (!before) throw notFound(`No automation ${id}`);
  const a = await checkedInput(q, input);
  if (a.action.kind === 'app' && options.keepAccount && before.action.kind === 'app')
    a.action = { ...a.action, account: before.action.account };
  const sealed = a.action.kind === 'app' ? boxOf(q).seal(a.action.account) : null;
  await q.query(
    `UPDATE weft_automations SET name = $2, trigger = $3, type_name = $4, field = $5, action = $6,
       enabled = $7, account_enc = $8 WHERE id = $1`,
    [id, ...storedColumns(a, sealed)],
  );
  return { ...a, id };
}

/** Turns a rule or button on or off; a rule that is off queues no runs, a button that is off is not offered. */
export async function setAutomationEnabled(q: Queryable, id: string, enabled: boolean): Promise<void> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw notFound(`No automation ${id}`);
  const { rows } = await q.query(`UPDATE weft_automations SET enabled = $2 WHERE id = $1 RETURNING id`, [
    id,
    enabled,
  ]);
  if (rows.length === 0) throw notFound(`No automation ${id}`);
}

export async function deleteAutomation(q: Queryable, id: string): Promise<void> {
  if (!(await getAutomation(q, id))) throw notFound(`No automation ${id}`);
  await q.query(`DELETE FROM weft_automations WHERE id = $1`, [id]);
}

/** Queues one run of a button on the chosen entities (of the button's type). */
export async function queueButtonRun(
  driver: Driver,
  automationId: string,
  entityIds: string[],
  userId: string,
): Promise<number> {
  const a = await getAutomation(driver, automationId);
  if (a?.trigger !== 'button') throw notFound(`No button ${automationId}`);
  if (!a.enabled) throw badRequest(`The button ${a.name} is turned off`, 'invalid-args');
  if (entityIds.length === 0 || entityIds.length > 1000)
    throw badRequest('Choose between 1 and 1000 entities', 'invalid-args');
  if (!entityIds.every((id) => /^[0-9a-f-]{36}$/i.test(id)))
    throw badRequest('Entity ids are uuids', 'invalid-args');
  // The run and its job commit together; the worker is woken, so the press is picked up at once.
  const id = await driver.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: number }>(
      `INSERT INTO weft_automation_runs (automation_id, entity_ids, user_id) VALUES ($1, $2::uuid[], $3) RETURNING id`,
      [a.id, entityIds, userId],
    );
    const runId = Number(rows[0]!.id);
    await sendInTransaction(tx, AUTOMATION_RUN, [{ runId: String(runId) }]);
    return runId;
  });
  jobQueueOf(driver)?.wake(AUTOMATION_RUN);
  return id;
}

/**
 * Called in the transaction of every command that changed entities (like webhook deliveries):
 * queues a run per matching rule and entity, and its job, so both exist exactly when the change
 * committed.
 */
export async function enqueueAutomationRuns(
  tx: Queryable,
  effects: Effect[],
  user: Principal,
): Promise<void> {
  const relevant = effects.filter(
    (e) => e.effect === 'svc.entity/create' || e.effect === 'svc.entity/update',
  );
  if (relevant.length === 0) return;
  const types = [...new Set(relevant.map((e) => e.type))];
  const { rows } = await tx.query<Row>(
    `SELECT * FROM weft_automations WHERE enabled AND trigger IN ('created', 'updated') AND type_name = ANY($1::text[])`,
    [types],
  );
  if (rows.length === 0) return;
  const automationIds: string[] = [];
  const entityIds: string[] = [];
  for (const a of rows.map(fromRow)) {
    for (const e of relevant) {
      if (e.type !== a.type) continue;
      if (a.trigger === 'created' && e.effect !== 'svc.entity/create') continue;
      if (a.trigger === 'updated') {
        if (e.effect !== 'svc.entity/update') continue;
        // An update's effect names the fields it changed, and only those (update-entities.ts).
        if (a.field && !(a.field in ((e.values ?? {}) as Row))) continue;
      }
      automationIds.push(a.id);
      entityIds.push(e.id);
    }
  }
  if (automationIds.length === 0) return;
  // One statement for all of them: a sync page of a thousand rows is one insert, not a thousand.
  const { rows: runs } = await tx.query<{ id: string }>(
    `INSERT INTO weft_automation_runs (automation_id, entity_ids, user_id)
     SELECT a, ARRAY[e], $3 FROM unnest($1::uuid[], $2::uuid[]) AS t(a, e) RETURNING id::text`,
    [automationIds, entityIds, user.id],
  );
  // Their jobs commit with them (one insert too); the workspace wakes the worker after the command.
  await sendInTransaction(
    tx,
    AUTOMATION_RUN,
    runs.map((r) => ({ runId: r.id })),
  );
}

export interface RunRecord {
  id: number;
  automationId: string;
  automation: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  message: string | null;
  answer: unknown;
  /** what a script wrote to its console (bounded), or null */
  console: string | null;
  entityIds: string[];
  attempts: number;
  createdAt: string;
  finishedAt: string | null;
}

export async function listRuns(q: Queryable, automationId?: string): Promise<RunRecord[]> {
  const { rows } = await q.query<Row>(
    `SELECT r.*, r.entity_ids::text[] AS ids, a.name FROM weft_automation_runs r
     JOIN weft_automations a ON a.id = r.automation_id
     WHERE $1::uuid IS NULL OR r.automation_id = $1::uuid ORDER BY r.id DESC LIMIT 200`,
    [automationId ?? null],
  );
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v ? String(v) : null);
  return rows.map((r) => ({
    id: Number(r.id),
    automationId: String(r.automation_id),
    automation: String(r.name),
    state: r.state as RunRecord['state'],
    message: (r.message as string | null) ?? null,
    answer: r.answer ?? null,
    console: (r.console as string | null) ?? null,
    entityIds: r.ids as string[],
    attempts: Number(r.attempts),
    createdAt: iso(r.created_at)!,
    finishedAt: iso(r.finished_at),
  }));
}
