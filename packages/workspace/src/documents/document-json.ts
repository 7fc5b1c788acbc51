import { defaultMarkdownParser, defaultMarkdownSerializer, schema } from 'prosemirror-markdown';
import { Node } from 'prosemirror-model';
import { badRequest } from '../errors.js';

// A document in `json` format, the structure the service's editor keeps: a ProseMirror document
// (node and mark names of ProseMirror's basic schema: paragraph, heading {level}, bullet_list,
// ordered_list {order}, list_item, code_block {params}, blockquote, horizontal_rule, hard_break,
// image; marks strong, em, code, link {href, title}) under `doc`, with the document's inline
// comments under `comments` (none here: the workspace keeps no inline comments).
//
//   {"doc": {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "Hi"}]}]},
//    "comments": []}
//
// Documents are stored as Markdown or HTML; json is converted from and to Markdown.

export interface JsonDocument {
  doc: Record<string, unknown>;
  comments: unknown[];
}

export function markdownToJson(markdown: string): JsonDocument {
  return { doc: defaultMarkdownParser.parse(markdown).toJSON(), comments: [] };
}

/** Markdown of a json document: `{doc, comments?}`, a bare `{type: 'doc'}`, or either as JSON text. */
export function jsonToMarkdown(value: unknown): string {
  let json = value;
  if (typeof json === 'string') {
    try {
      json = JSON.parse(json);
    } catch {
      throw badRequest('content in json format is a document object or its JSON text');
    }
  }
  const doc = json && typeof json === 'object' && 'doc' in json ? (json as { doc: unknown }).doc : json;
  let node: Node;
  try {
    node = Node.fromJSON(schema, doc);
    node.check();
  } catch (error) {
    throw badRequest(`content is not a valid json document: ${(error as Error).message}`.slice(0, 300));
  }
  if (node.type.name !== 'doc') throw badRequest('content in json format has a node of type doc at its root');
  return defaultMarkdownSerializer.serialize(node);
}
