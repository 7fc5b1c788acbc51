import type { Catalog, FieldDef, TypeDef } from '../schema/catalog.js';
import {
  type EntityDetail,
  isMultiSelect,
  isRichText,
  PAGE_SIZE,
  type TableRequest,
  titleField,
} from './entity-queries.js';
import { fieldTitle } from '../automations/entity-shapes.js';
import { isDateField, timeElement } from './format-cells.js';
import { type Html, html } from './html.js';
import { renderRichText } from './rich-text.js';

type Row = Record<string, unknown>;

export const typeHref = (type: string, extra: Record<string, string | number | undefined> = {}) => {
  const p = new URLSearchParams({ name: type });
  for (const [k, v] of Object.entries(extra)) if (v !== undefined && v !== '') p.set(k, String(v));
  return `/ui/type?${p}`;
};
export const entityHref = (type: string, id: string) => `/ui/entity?${new URLSearchParams({ type, id })}`;

/** A value as the page shows it: relations become links to the related entity. */
export function cell(catalog: Catalog, f: FieldDef, value: unknown): Html | string {
  if (value === null || value === undefined) return '';
  if (f.kind !== 'primitive') {
    const target = catalog.target(f);
    const title = titleField(target);
    const link = (v: Row) =>
      html`<a href="${entityHref(target.name, String(v['svc/id']))}">${title ? (v[title.name] ?? v['svc/id']) : v['svc/id']}</a>`;
    if (Array.isArray(value)) return html`${value.map((v, i) => html`${i ? ', ' : ''}${link(v as Row)}`)}`;
    return link(value as Row);
  }
  if (isDateField(f)) return timeElement(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A button the table offers on its chosen rows. */
export interface TableButton {
  id: string;
  name: string;
}

export function tableView(
  catalog: Catalog,
  t: TypeDef,
  cols: FieldDef[],
  rows: Row[],
  hasNext: boolean,
  r: TableRequest,
  buttons: TableButton[] = [],
): Html {
  const state = { sort: r.sort, desc: r.desc ? 1 : undefined, f: r.filterField, v: r.filterValue };
  const head = cols.map((f) => {
    if (isMultiSelect(f)) return html`<th title="${f.name}">${fieldTitle(t, f)}</th>`;
    const desc = r.sort === f.name && !r.desc ? 1 : undefined;
    const arrow = r.sort === f.name ? (r.desc ? ' ▼' : ' ▲') : '';
    return html`<th title="${f.name}"><a href="${typeHref(t.name, { ...state, sort: f.name, desc, page: undefined })}">${fieldTitle(t, f)}${arrow}</a></th>`;
  });
  // With buttons, each row has a box to choose it; the boxes belong to the buttons' form.
  const choose = (row: Row) =>
    buttons.length
      ? html`<td><input type="checkbox" form="run-buttons" name="entity" value="${String(row['svc/id'])}" aria-label="choose"></td>`
      : '';
  const body = rows.map(
    (row) =>
      html`<tr>${choose(row)}${cols.map((f) =>
        f.name === 'svc/public-id' || f === titleField(t)
          ? html`<td><a href="${entityHref(t.name, String(row['svc/id']))}">${cell(catalog, f, row[f.name]) || '(open)'}</a></td>`
          : html`<td>${cell(catalog, f, row[f.name])}</td>`,
      )}</tr>`,
  );
  const options = cols
    .filter((f) => !isMultiSelect(f))
    .map(
      (f) =>
        html`<option value="${f.name}" ${f.name === r.filterField ? 'selected' : ''}>${fieldTitle(t, f)}</option>`,
    );
  const runForm = buttons.length
    ? html`<form method="post" action="/ui/automations/run" id="run-buttons">Run on the chosen rows:
${buttons.map((b) => html` <button name="automation" value="${b.id}">${b.name}</button>`)}</form>`
    : '';
  return html`
<form method="get" action="/ui/type"><input type="hidden" name="name" value="${t.name}">
Filter <select name="f">${options}</select> <input name="v" value="${r.filterValue ?? ''}" placeholder="value (text: contains)">
<button>Apply</button> <a href="${typeHref(t.name)}">clear</a></form>
${runForm}
<div class="scroll"><table id="entities"><thead><tr>${buttons.length ? html`<th></th>` : ''}${head}</tr></thead><tbody>${body}</tbody></table></div>
<p>Page ${r.page + 1} (${PAGE_SIZE} per page)
${r.page > 0 ? html` · <a rel="prev" href="${typeHref(t.name, { ...state, page: r.page - 1 })}">previous</a>` : ''}
${hasNext ? html` · <a rel="next" href="${typeHref(t.name, { ...state, page: r.page + 1 })}">next</a>` : ''}</p>`;
}

export function entityView(catalog: Catalog, t: TypeDef, detail: EntityDetail, buttons: Html): Html {
  const rows = t.fields.map((f) => {
    if (isRichText(catalog, f)) {
      const md = detail.richText.get(f.name);
      return html`<tr><th title="${f.name}">${fieldTitle(t, f)}</th><td><div class="rich">${md ? renderRichText(md) : ''}</div></td></tr>`;
    }
    return html`<tr><th title="${f.name}">${fieldTitle(t, f)}</th><td>${cell(catalog, f, detail.entity[f.name])}</td></tr>`;
  });
  return html`<p>Type <a href="${typeHref(t.name)}">${t.name}</a></p>${buttons}
<div class="scroll"><table id="entity">${rows}</table></div>`;
}
