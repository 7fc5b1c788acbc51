// What apps written for the service do with a sync's first pages, for the tests that play such an
// app: a type's first page is answered only once every type of the sync (`types` of the request)
// has asked for its own under the same `operationId`, because the app fetches all of them
// upstream in one go. The service asks every first page at once; a caller that asks fewer at a
// time waits, and here gets `false` after `waitMs`.

type Json = Record<string, unknown>;

export class FirstPagesGate {
  private readonly operations = new Map<string, { asked: Set<string>; waiting: (() => void)[] }>();

  constructor(private readonly waitMs: number) {}

  /** Resolves true once every type of the request's sync has asked for its first page. */
  pass(body: Json): Promise<boolean> {
    const id = String(body.operationId);
    const op = this.operations.get(id) ?? { asked: new Set<string>(), waiting: [] };
    this.operations.set(id, op);
    op.asked.add(String(body.requestedType));
    if (op.asked.size >= ((body.types as string[] | undefined) ?? []).length) {
      for (const go of op.waiting.splice(0)) go();
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), this.waitMs);
      op.waiting.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
