// The browser side of live states, served as /ui/live.js (a file, so the page's
// Content-Security-Policy can forbid inline scripts). It only ever writes text, never HTML.
export const LIVE_JS = `
const source = new EventSource('/ui/events');
const setText = (row, selector, text) => {
  const cell = row.querySelector(selector);
  if (cell) cell.textContent = text == null ? '' : String(text);
};
const setBadge = (row, state) => {
  const badge = row.querySelector('.state .badge');
  if (badge) { badge.textContent = state; badge.className = 'badge ' + state; }
};
source.addEventListener('runs', (event) => {
  for (const run of JSON.parse(event.data)) {
    const row = document.querySelector('tr[data-run="' + CSS.escape(run.id) + '"]');
    if (!row) continue;
    setBadge(row, run.state);
    setText(row, '.message', run.message);
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
