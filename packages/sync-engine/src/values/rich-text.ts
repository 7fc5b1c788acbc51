/**
 * A rich-text field's document from the value an app sent: its text, or, for a list of parts
 * (`array[text]` with subType `html` or `md`, as the service's own Intercom app sends a
 * conversation's messages), the parts in order as one document: HTML blocks one after another,
 * Markdown parts as paragraphs. Nothing (null, absent, an empty list) is an empty document.
 */
export function richTextOf(value: unknown, format: 'md' | 'html'): string {
  if (value === null || value === undefined) return '';
  if (!Array.isArray(value)) return String(value);
  const parts = value.filter((v) => v !== null && v !== undefined).map(String);
  return parts.join(format === 'html' ? '\n' : '\n\n');
}
