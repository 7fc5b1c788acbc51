import { Marked } from 'marked';
import { escapeHtml, type Html, raw } from './html.js';

// Rich text is shown by rendering its Markdown form with a Marked instance that cannot emit markup
// of its own: raw HTML in the source is escaped (shown as text), links and images keep only
// http(s)/mailto addresses, and every text run is escaped by Marked itself. So the output is
// sanitised by construction: the only tags in it are the ones Markdown produces.

const SAFE_URL = /^(https?:|mailto:)/i;

const safeMarked = new Marked({
  async: false,
  gfm: true,
  renderer: {
    html(token) {
      return escapeHtml(token.text);
    },
    link({ href, tokens }) {
      const text = this.parser.parseInline(tokens);
      if (!SAFE_URL.test(href)) return text;
      return `<a href="${escapeHtml(href)}" rel="noopener noreferrer nofollow">${text}</a>`;
    },
    image({ href, text }) {
      if (!SAFE_URL.test(href)) return escapeHtml(text);
      return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}">`;
    },
  },
});

/** Markdown → sanitised HTML for the page. */
export function renderRichText(markdown: string): Html {
  return raw(safeMarked.parse(markdown, { async: false }) as string);
}
