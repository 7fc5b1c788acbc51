import type { FieldDef, TypeDef } from '../schema/catalog.js';
import { titleField } from './entity-queries.js';
import { type Html, html } from './html.js';

// How the page shows values the way the service's UI does (a field's own name is fieldTitle of
// entity-shapes.ts, which scripts' keys follow too): an entity by its title, a
// date or time in the viewer's own locale. The server cannot know the viewer's locale, so it sends
// the ISO value in a <time> element and /ui/format.js rewrites its text in the browser; the ISO
// value stays on hover (title) and in `datetime`.

const DATE_TYPES = new Set(['svc/date', 'svc/date-time']);

export const isDateField = (f: FieldDef): boolean => f.kind === 'primitive' && DATE_TYPES.has(f.fieldType);

/** A date (`2026-03-01`) or instant as a <time> the browser formats in the viewer's locale. */
export function timeElement(value: unknown): Html | string {
  const iso = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : '';
  if (iso === '') return '';
  return html`<time datetime="${iso}" title="${iso}">${iso}</time>`;
}

/**
 * An entity's title: its title field's value (the app host's `<app>/name`), else the type and
 * public id (`bookshelf/book 2`).
 */
export function entityTitle(t: TypeDef, entity: Record<string, unknown>): string {
  const f = titleField(t);
  const name = f ? entity[f.name] : undefined;
  if (typeof name === 'string' && name.trim() !== '') return name;
  return `${t.name} ${String(entity['svc/public-id'] ?? entity['svc/id'] ?? '')}`;
}

/** /ui/format.js: rewrites every <time> into the viewer's locale (a day stays that day). */
export const FORMAT_JS = `
const formatTimes = (root) => {
  for (const el of root.querySelectorAll('time[datetime]')) {
    const iso = el.getAttribute('datetime');
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) continue;
    el.textContent = /^\\d{4}-\\d{2}-\\d{2}$/.test(iso)
      ? date.toLocaleDateString(undefined, { timeZone: 'UTC', dateStyle: 'medium' })
      : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }
};
formatTimes(document);
// live.js writes times into rows it updates; it formats them with this.
globalThis.weftFormatTimes = formatTimes;
`;
