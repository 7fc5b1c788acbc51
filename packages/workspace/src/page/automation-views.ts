import type { Principal } from '../auth/principal.js';
import type { Driver } from '../db/driver.js';
import type { Catalog } from '../schema/catalog.js';
import { timeElement } from './format-cells.js';
import { type Html, html } from './html.js';
import { badge } from './layout.js';

// The Automations tab: rules and buttons (with their edit, on/off and delete controls for an
// admin) and the latest runs. Definitions and runs are the admins' (as the JSON API's).

type Row = Record<string, unknown>;
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v ? String(v) : '');

/** The enabled buttons of a type, to offer on its table and on its entities' pages. */
export async function enabledButtons(driver: Driver, type: string): Promise<{ id: string; name: string }[]> {
  const { rows } = await driver.query<{ id: string; name: string }>(
    `SELECT id::text AS id, name FROM weft_automations WHERE trigger = 'button' AND enabled AND type_name = $1
     ORDER BY name`,
    [type],
  );
  return rows;
}

/** A script's console output, folded: the first line shows, the rest opens on a click. */
function consoleCell(text: unknown): Html | string {
  if (typeof text !== 'string' || text === '') return '';
  const lines = text.split('\n');
  const first = lines[0]!.length > 120 ? `${lines[0]!.slice(0, 120)}…` : lines[0]!;
  return html`<details><summary>${first}${lines.length > 1 ? html` <small>(${lines.length} lines)</small>` : ''}</summary><pre>${text}</pre></details>`;
}

function controls(a: Row): Html {
  const id = String(a.id);
  return html`<a href="/ui/automations/${id}/edit">Edit</a>
<form class="inline" method="post" action="/ui/automations/${id}/enabled"><input type="hidden" name="enabled" value="${a.enabled ? 'false' : 'true'}"><button>${a.enabled ? 'Turn off' : 'Turn on'}</button></form>
<a href="/ui/automations/${id}/delete">Delete</a>`;
}

/** Rules and buttons; their runs (answers, console output) for an admin only, as GET /api/automations/runs. */
export async function automationsView(driver: Driver, user: Principal): Promise<Html> {
  const { rows: automations } = await driver.query<Row>(
    `SELECT id::text AS id, name, trigger, type_name, field, action->>'kind' AS kind, action->>'action' AS action, enabled
     FROM weft_automations ORDER BY created_at`,
  );
  const { rows: runs } = await driver.query<Row>(
    `SELECT r.id::text AS id, a.name, r.state, r.message, r.console, r.attempts, r.entity_ids::text[] AS entity_ids,
       r.created_at, r.finished_at
     FROM weft_automation_runs r JOIN weft_automations a ON a.id = r.automation_id WHERE $1
     ORDER BY r.id DESC LIMIT 50`,
    [user.admin],
  );
  return html`<h2>Rules and buttons</h2>
${user.admin ? html`<p><a href="/ui/automations/new">New rule or button</a></p>` : ''}
<div class="scroll"><table id="automations"><tr><th>name</th><th>when</th><th>type</th><th>does</th><th>enabled</th>${user.admin ? html`<th></th>` : ''}</tr>
${automations.map(
  (
    a,
  ) => html`<tr data-automation="${a.id}"><td>${a.name}</td><td>${a.trigger}${a.field ? html` (${a.field} changed)` : ''}</td>
<td>${a.type_name}</td><td>${a.kind === 'script' ? 'script' : html`action ${a.action}`}</td><td class="enabled">${a.enabled ? 'yes' : 'no'}</td>
${user.admin ? html`<td>${controls(a)}</td>` : ''}</tr>`,
)}</table></div>
<h2>Runs <small>(live)</small></h2>
<div class="scroll"><table id="runs" data-since="${iso(runs[0]?.created_at)}"><tr><th>#</th><th>automation</th><th>state</th><th>answer</th><th>console</th><th>entities</th><th>queued</th><th>finished</th></tr>
${runs.map(
  (
    r,
  ) => html`<tr data-run="${r.id}"><td>${r.id}</td><td>${r.name}</td><td class="state">${badge(String(r.state))}</td>
<td class="message">${r.message}</td><td class="console">${consoleCell(r.console)}</td><td>${(r.entity_ids as string[]).length}</td><td>${timeElement(r.created_at)}</td><td class="finished">${timeElement(r.finished_at)}</td></tr>`,
)}</table></div><script src="/ui/live.js"></script>`;
}

/** What the automation form shows: a stored automation's values, or what was sent with an error. */
export interface AutomationFormValues {
  name: string;
  trigger: string;
  type: string;
  field: string;
  kind: string;
  url: string;
  action: string;
  args: string;
  /** the stored account's field names (editing: the account itself is never shown) */
  accountFields: string[];
  code: string;
  timeoutMs: string;
  enabled: boolean;
}

export const EMPTY_FORM: AutomationFormValues = {
  name: '',
  trigger: 'created',
  type: '',
  field: '',
  kind: 'app',
  url: '',
  action: '',
  args: '',
  accountFields: [],
  code: '',
  timeoutMs: '',
  enabled: true,
};

const option = (value: string, label: string, current: string) =>
  html`<option value="${value}" ${value === current ? 'selected' : ''}>${label}</option>`;

/** The form of a new automation (`id` absent) or of an existing one. */
export function automationForm(catalog: Catalog, v: AutomationFormValues, id?: string, error?: string): Html {
  const types = catalog.types.filter((t) => !t.builtin).sort((a, b) => a.name.localeCompare(b.name));
  const fields = [...new Set(types.flatMap((t) => t.fields.map((f) => f.name)))].sort();
  const accountHint =
    id && v.accountFields.length
      ? `stored (${v.accountFields.join(', ')}): leave empty to keep it`
      : 'one "field: value" a line, e.g. webhookUrl: https://hooks.slack.com/services/…';
  return html`${error ? html`<p class="error">${error}</p>` : ''}
<form method="post" action="${id ? `/ui/automations/${id}/edit` : '/ui/automations/new'}" id="automation-form" class="stacked">
<p><label>Name<br><input name="name" value="${v.name}" required maxlength="200" size="50"></label></p>
<p><label>When<br><select name="trigger">${option('created', 'an entity is created (rule)', v.trigger)}${option('updated', 'an entity is updated (rule)', v.trigger)}${option('button', 'a user presses it (button)', v.trigger)}</select></label></p>
<p><label>Type<br><input name="type" value="${v.type}" list="type-names" required size="50" placeholder="bookshelf/book"></label></p>
<p><label>Field <small>(updated rules only: run only when it changed; optional)</small><br><input name="field" value="${v.field}" list="field-names" size="50"></label></p>
<datalist id="type-names">${types.map((t) => html`<option value="${t.name}">`)}</datalist>
<datalist id="field-names">${fields.map((f) => html`<option value="${f}">`)}</datalist>
<p><label>Does<br><select name="kind">${option('app', 'an app action', v.kind)}${option('script', 'a script', v.kind)}</select></label></p>
<fieldset><legend>App action</legend>
<p><label>App address<br><input name="url" value="${v.url}" size="50" placeholder="http://localhost:3102"></label></p>
<p><label>Action id<br><input name="action" value="${v.action}" size="50" placeholder="send-message"></label></p>
<p><label>Arguments <small>(one "argument: template" a line; {{Field}} and {{Relation.Field}} are filled in)</small><br>
<textarea name="args" rows="4" cols="60" placeholder="text: New book: {{Title}} by {{Author.Name}}">${v.args}</textarea></label></p>
<p><label>Account <small>(sealed; never shown again)</small><br>
<textarea name="account" rows="3" cols="60" autocomplete="off" placeholder="${accountHint}"></textarea></label></p>
</fieldset>
<fieldset><legend>Script</legend>
<p><label>Code <small>(the body of an async function of (args, context))</small><br>
<textarea name="code" rows="10" cols="80" spellcheck="false">${v.code}</textarea></label></p>
<p><label>Time limit in ms <small>(optional, default 5000)</small><br><input name="timeoutMs" value="${v.timeoutMs}" inputmode="numeric" size="10"></label></p>
</fieldset>
<p><label><input type="checkbox" name="enabled" value="true" ${v.enabled ? 'checked' : ''}> Enabled</label></p>
<button>${id ? 'Save' : 'Create'}</button> <a href="/ui/automations">Cancel</a></form>`;
}

/** Asks before deleting: a page of its own, so no script is needed for a confirm. */
export function deleteConfirm(id: string, name: string): Html {
  return html`<p>Delete <strong>${name}</strong> and all its runs? This cannot be undone.</p>
<form method="post" action="/ui/automations/${id}/delete" id="confirm-delete"><button>Delete</button> <a href="/ui/automations">Cancel</a></form>`;
}
