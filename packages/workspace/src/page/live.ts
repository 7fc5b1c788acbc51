// The browser side of live run states, served as /ui/live.js (a file, so the page's
// Content-Security-Policy can forbid inline scripts). It only writes text, never HTML.
export const LIVE_JS = `
const source = new EventSource('/ui/events');
source.addEventListener('runs', (event) => {
  for (const run of JSON.parse(event.data)) {
    const row = document.querySelector('tr[data-run="' + CSS.escape(run.id) + '"]');
    if (!row) continue;
    const badge = row.querySelector('.state .badge');
    if (badge) { badge.textContent = run.state; badge.className = 'badge ' + run.state; }
    const message = row.querySelector('.message');
    if (message) message.textContent = run.message || '';
  }
});
`;
