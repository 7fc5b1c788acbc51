import type { JsonDocument } from './document-json.js';

// Markdown ⇄ HTML (marked, turndown) and Markdown ⇄ ProseMirror json (document-json.ts), loaded on
// the first document read or written instead of at start: they are a fifth of the modules the
// workspace loads before it listens, and many workspaces never touch a document.

export interface Converters {
  mdToHtml(md: string): string;
  htmlToMd(html: string): string;
  markdownToJson(md: string): JsonDocument;
  jsonToMarkdown(doc: unknown): string;
}

let loading: Promise<Converters> | undefined;

export function converters(): Promise<Converters> {
  loading ??= (async () => {
    const [{ marked }, { default: TurndownService }, json] = await Promise.all([
      import('marked'),
      import('turndown'),
      import('./document-json.js'),
    ]);
    const turndown = new TurndownService({
      headingStyle: 'atx',
      bulletListMarker: '-',
      codeBlockStyle: 'fenced',
    });
    return {
      mdToHtml: (md) => (marked.parse(md, { async: false }) as string).trimEnd(),
      htmlToMd: (html) => turndown.turndown(html),
      markdownToJson: json.markdownToJson,
      jsonToMarkdown: json.jsonToMarkdown,
    };
  })();
  // A failed load is tried again by the next document, not remembered.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}
