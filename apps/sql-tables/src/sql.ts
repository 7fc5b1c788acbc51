// Small helpers for writing SQL text safely: identifiers are quoted, never interpolated raw.

/** Quotes an identifier (a schema, table or column name) for Postgres. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `"schema"."table"`. */
export function qualified(schema: string, table: string): string {
  return `${ident(schema)}.${ident(table)}`;
}

/** `$1, $2, ...` starting at `from`. */
export function placeholders(count: number, from = 1): string {
  return Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
}
