// Parameter and alias bookkeeping for one compiled statement. Values only ever reach SQL as $n
// parameters; identifiers are the catalog's generated table and column names, never user text.

export class SqlBuilder {
  readonly values: unknown[] = [];
  private aliases = 0;
  private nodes = 0;

  /** `spent` is told how many parts the statement has so far, each time it grows. */
  constructor(private readonly spent: (nodes: number) => void = () => {}) {}

  /** Counts one more part of the statement (a filter, a selected value, a parameter, a join). */
  spend(): void {
    this.spent(++this.nodes);
  }

  bind(value: unknown, cast?: string): string {
    this.spend();
    this.values.push(value);
    return cast ? `$${this.values.length}::${cast}` : `$${this.values.length}`;
  }

  alias(): string {
    this.spend();
    this.aliases += 1;
    return `a${this.aliases}`;
  }
}

/** A JSON object from key/value SQL pairs; json_build_object takes at most 100 arguments. */
export function jsonObject(pairs: Array<[string, string]>, b: SqlBuilder): string {
  if (pairs.length === 0) return `'{}'::json`;
  const chunks: string[] = [];
  for (let i = 0; i < pairs.length; i += 50) {
    const part = pairs
      .slice(i, i + 50)
      .map(([k, v]) => `${literal(k, b)}, ${v}`)
      .join(', ');
    chunks.push(`json_build_object(${part})`);
  }
  if (chunks.length === 1) return chunks[0]!;
  return `(${chunks.map((c) => `${c}::jsonb`).join(' || ')})::json`;
}

/** Keys of result objects are field names or aliases: always passed as parameters. */
function literal(key: string, b: SqlBuilder): string {
  return b.bind(key, 'text');
}
