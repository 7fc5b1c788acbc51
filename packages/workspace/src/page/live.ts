// The browser side of live states, served as /ui/live.js (a file, so the page's
// Content-Security-Policy can forbid inline scripts). It only ever writes text, never HTML.
export const LIVE_JS = `
const source = new EventSource('/ui/events');
const setText = (row, selector, text) => {
  const cell = row.querySelector(selector);
  if (cell) cell.textContent = text == null ? '' : String(text);
};
// A time as the server renders it (<time datetime>), formatted by /ui/format.js when it is there.
const setTime = (row, selector, iso) => {
  const cell = row.querySelector(selector);
  if (!cell || (cell.dataset.iso || '') === (iso || '')) return;
  cell.dataset.iso = iso || '';
  cell.replaceChildren();
  if (!iso) return;
  const time = document.createElement('time');
  time.dateTime = iso;
  time.title = iso;
  time.textContent = iso;
  cell.append(time);
  if (globalThis.weftFormatTimes) globalThis.weftFormatTimes(cell);
};
const setBadge = (row, state) => {
  const badge = row.querySelector('.state .badge');
  if (badge) { badge.textContent = state; badge.className = 'badge ' + state; }
};
// The same folded console as the server renders: the first line, the rest on a click.
const setConsole = (row, text) => {
  const cell = row.querySelector('.console');
  if (!cell || cell.dataset.text === (text || '')) return;
  cell.dataset.text = text || '';
  cell.replaceChildren();
  if (!text) return;
  const lines = text.split('\\n');
  const details = document.createElement('details');
  const summary = document.createElement('summary');
  summary.textContent = lines[0].length > 120 ? lines[0].slice(0, 120) + '…' : lines[0];
  if (lines.length > 1) {
    const small = document.createElement('small');
    small.textContent = '(' + lines.length + ' lines)';
    summary.append(' ', small);
  }
  const pre = document.createElement('pre');
  pre.textContent = text;
  details.append(summary, pre);
  cell.append(details);
};
const cell = (className, text) => {
  const td = document.createElement('td');
  if (className) td.className = className;
  if (text != null) td.textContent = String(text);
  return td;
};
// A run queued after the page was served gets its row, newest first, as the server renders it.
const addRunRow = (table, run) => {
  const row = document.createElement('tr');
  row.dataset.run = run.id;
  const state = cell('state');
  const badge = document.createElement('span');
  state.append(badge);
  row.append(cell('', run.id), cell('', run.name), state, cell('message'), cell('console'),
    cell('', run.entities), cell('queued'), cell('finished'));
  setTime(row, '.queued', run.created_at);
  const header = table.querySelector('tr');
  if (header) header.after(row); else table.append(row);
  return row;
};
source.addEventListener('runs', (event) => {
  const table = document.querySelector('table#runs');
  // Oldest first, so that new rows end up newest on top.
  for (const run of JSON.parse(event.data).reverse()) {
    let row = document.querySelector('tr[data-run="' + CSS.escape(run.id) + '"]');
    if (!row && table && run.created_at > (table.dataset.since || '')) row = addRunRow(table, run);
    if (!row) continue;
    setBadge(row, run.state);
    setText(row, '.message', run.message);
    setConsole(row, run.console);
    setTime(row, '.finished', run.finished_at);
  }
});
source.addEventListener('syncs', (event) => {
  for (const run of JSON.parse(event.data)) {
    const row = document.querySelector('tr[data-sync="' + CSS.escape(run.id) + '"]');
    if (!row) continue;
    setBadge(row, run.status);
    setText(row, '.pages', run.pages);
    setText(row, '.rows', run.rows_set);
    setText(row, '.removed', run.rows_removed);
    setText(row, '.message', run.error);
  }
});
`;
