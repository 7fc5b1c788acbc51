// The page's stylesheet, served as /ui/style.css (a file, so the page's Content-Security-Policy
// can forbid inline styles).
export const STYLE_CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#24324a;color:#fff;padding:10px 20px;display:flex;gap:18px;align-items:center}
header a{color:#dfe6f5;text-decoration:none}header strong{color:#fff;margin-right:12px}
main{padding:18px 24px;max-width:1200px}
table{border-collapse:collapse;background:#fff;width:100%;margin:8px 0 18px}
th,td{border:1px solid #d9dde5;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#e9edf4}th a{color:#1d2330}a{color:#2453a6}
.badge{display:inline-block;padding:1px 7px;border-radius:9px;background:#e2e8f2;font-size:12px}
.done,.succeeded{background:#d5f0dc}.failed{background:#f7d6d6}.running{background:#fbeec6}.queued{background:#e2e8f2}
.rich{background:#fff;border:1px solid #d9dde5;padding:4px 14px}
.error{background:#f7d6d6;padding:8px 12px;border-radius:4px}
form.inline{display:inline}
td.console pre{white-space:pre-wrap;max-height:240px;overflow:auto;margin:4px 0;font-size:12px}
.notice{background:#d5f0dc;padding:8px 12px;border-radius:4px}
.scroll{max-width:100%;overflow-x:auto;margin:8px 0 18px}.scroll>table{margin:0}
td{max-width:32em;overflow-wrap:anywhere}
form.stacked fieldset{border:1px solid #d9dde5;background:#fff;margin:10px 0;max-width:52em}
form.stacked textarea,form.stacked input[size]{max-width:100%;box-sizing:border-box}
#exchanges pre{white-space:pre-wrap;word-break:break-all;max-height:240px;overflow:auto;margin:4px 0;font-size:12px}
#exchanges tr.failed td.status{background:#f7d6d6}
`;
