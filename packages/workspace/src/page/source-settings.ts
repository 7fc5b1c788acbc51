import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { type Html, html } from './html.js';
import { layout } from './layout.js';
import { sendPage as send } from './send-page.js';
import { sessionOf } from './session.js';
import { hostCall } from './source-forms.js';

// A source's types and filter, chosen as in the service after connecting an account: the app's
// types as boxes, its filters as inputs, a filter with a datalist as a choice among the app's own
// items (several for a multidropdown). Read and saved through the host's JSON API with the
// session's token (GET .../config, POST .../datalist, PATCH the source), so the host checks the
// types and asks the app to validate the filter.

type Json = Record<string, any>;
interface FilterDef {
  id: string;
  title: string;
  type: string;
  datalist?: boolean;
  optional?: boolean;
}
interface Item {
  title: string;
  value: unknown;
}

const settingsBody = z.object({
  type: z.union([z.string(), z.array(z.string())]).optional(),
});

const asList = (v: unknown): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];

/** A stored date range ({_min, _max}) in the form's grammar: `between 01-01-2020 and 31-12-2020`. */
function rangeText(v: unknown): string {
  const r = v as { _min?: string; _max?: string } | undefined;
  const day = (iso?: string) => (iso ? iso.slice(0, 10).split('-').reverse().join('-') : '');
  if (r?._min && r._max) return `between ${day(r._min)} and ${day(r._max)}`;
  if (r?._min) return `from ${day(r._min)}`;
  if (r?._max) return `to ${day(r._max)}`;
  return typeof v === 'string' ? v : '';
}

function filterInput(f: FilterDef, current: unknown, items: Item[] | undefined): Html {
  const name = `filter.${f.id}`;
  const label = html`${f.title}${f.optional ? ' (optional)' : ''}`;
  if (items) {
    const chosen = new Set(asList(current).map(String));
    const multiple = f.type === 'multidropdown';
    return html`<p><label>${label}<br><select name="${name}" ${multiple ? 'multiple size="6"' : ''}>
${multiple ? '' : html`<option value="">(any)</option>`}${items.map(
  (i) =>
    html`<option value="${String(i.value)}" ${chosen.has(String(i.value)) ? 'selected' : ''}>${i.title}</option>`,
)}</select></label></p>`;
  }
  if (f.type === 'bool')
    return html`<p><label><input type="checkbox" name="${name}" value="true" ${current === true ? 'checked' : ''}> ${label}</label></p>`;
  const value = f.type === 'date' ? rangeText(current) : current == null ? '' : String(current);
  const hint = f.type === 'date' ? 'e.g. last 3 years, between 01-01-2020 and 31-12-2020' : '';
  return html`<p><label>${label}<br><input name="${name}" value="${value}" size="50" placeholder="${hint}"></label></p>`;
}

/** The filter the form sent, in the app's value types; an empty input leaves that filter out. */
function filterFrom(body: Json, filters: FilterDef[]): Json {
  const out: Json = {};
  for (const f of filters) {
    const raw = body[`filter.${f.id}`];
    const values = asList(raw).filter((v) => v !== '');
    if (f.type === 'bool') {
      out[f.id] = values[0] === 'true';
      continue;
    }
    if (values.length === 0) continue;
    if (f.type === 'multidropdown') out[f.id] = values;
    else if (f.type === 'number') out[f.id] = Number(values[0]);
    else out[f.id] = values[0];
  }
  return out;
}

export function sourceSettings(): Router {
  const router = Router();
  const tokenOf = (res: Response) => sessionOf(res).pageSession.token;
  const base = (id: string) => `/api/host/sources/${encodeURIComponent(id)}`;
  const failed = (res: Response, status: number, message: unknown) => {
    res.status(status >= 400 && status < 500 ? status : 502);
    send(
      res,
      layout(
        'Types and filter',
        html`<p class="error">${String(message ?? 'The app did not answer')}</p><p><a href="/ui">Overview</a></p>`,
      ),
    );
  };

  /** The form, from the source, the app's config and its datalists; undefined when one failed (answered). */
  const show = async (req: Request, res: Response, id: string, error?: string, sent?: Json) => {
    const token = tokenOf(res);
    const source = await hostCall(req, token, 'GET', base(id));
    if (source.status !== 200) return failed(res, source.status, source.body.message);
    const config = await hostCall(req, token, 'GET', `${base(id)}/config`);
    if (config.status !== 200) return failed(res, config.status, config.body.message);
    const types = (config.body.types ?? []) as Array<{ id: string; name: string; description?: string }>;
    const filters = (config.body.filters ?? []) as FilterDef[];
    const items = new Map<string, Item[]>();
    for (const f of filters.filter((f) => f.datalist)) {
      const answer = await hostCall(req, token, 'POST', `${base(id)}/datalist`, { field: f.id });
      if (answer.status === 200 && Array.isArray(answer.body.items))
        items.set(f.id, answer.body.items as Item[]);
    }
    const chosen = new Set<string>(sent ? asList(sent.type) : (source.body.types as string[]));
    const current = (source.body.filter ?? {}) as Json;
    const added = req.query.added
      ? html`<p class="notice">The source is added. Choose what it syncs, then save (or <a href="/ui">skip</a>).</p>`
      : '';
    if (error) res.status(400);
    send(
      res,
      layout(
        `Types and filter of ${String(source.body.name)}`,
        html`${added}${error ? html`<p class="error">${error}</p>` : ''}
<form method="post" action="/ui/sources/${id}/settings" id="source-settings" class="stacked">
<fieldset><legend>Types</legend>${types.map(
          (
            t,
          ) => html`<p><label><input type="checkbox" name="type" value="${t.id}" ${chosen.has(t.id) ? 'checked' : ''}> ${t.name}</label>
${t.description ? html`<br><small>${t.description}</small>` : ''}</p>`,
        )}</fieldset>
${filters.length ? html`<fieldset><legend>Filter</legend>${filters.map((f) => filterInput(f, sent ? sent[`filter.${f.id}`] : current[f.id], items.get(f.id)))}</fieldset>` : ''}
<button>Save</button> <a href="/ui">Cancel</a></form>`,
      ),
    );
  };

  router.get('/ui/sources/:id/settings', async (req, res) => {
    await show(req, res, req.params.id);
  });

  router.post('/ui/sources/:id/settings', async (req, res) => {
    const body = (req.body ?? {}) as Json;
    const parsed = settingsBody.safeParse(body);
    const types = parsed.success ? asList(parsed.data.type) : [];
    if (types.length === 0) return show(req, res, req.params.id, 'Choose at least one type.', body);
    const config = await hostCall(req, tokenOf(res), 'GET', `${base(req.params.id)}/config`);
    if (config.status !== 200) return failed(res, config.status, config.body.message);
    const filter = filterFrom(body, (config.body.filters ?? []) as FilterDef[]);
    const answer = await hostCall(req, tokenOf(res), 'PATCH', base(req.params.id), { types, filter });
    if (answer.status === 200) return res.redirect(303, '/ui');
    if (answer.status !== 400) return failed(res, answer.status, answer.body.message);
    await show(req, res, req.params.id, String(answer.body.message ?? 'Refused'), body);
  });
  return router;
}
