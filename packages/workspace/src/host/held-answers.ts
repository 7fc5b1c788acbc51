// Answers asked for ahead of the job that reads them, held in this process for a while. A run's
// start job asks the app for the first page of every type at once (as the service does) while it
// creates the run's tables: the app's first page (often an upstream call of its own) and the
// workspace's DDL then take their time side by side instead of one after the other.
//
// What is held is never state: the page job that finds nothing here (it runs in another process,
// or came too late) asks the app itself, as it always did. So an answer is given out only for the
// very request it was asked with, once, and one nobody takes within `holdMs` is dropped, its
// request aborted.

interface Held<T> {
  request: string;
  answer: Promise<T>;
  abort: AbortController;
  /** the request's own signal: aborted with the asker's, or when the answer is dropped */
  signal: AbortSignal;
  timer: NodeJS.Timeout;
}

export class HeldAnswers<T> {
  private readonly held = new Map<string, Held<T>>();

  constructor(private readonly holdMs: number) {}

  /**
   * Asks now (`ask` gets a signal that aborts with `signal` or when the answer is dropped) and
   * holds the answer for `run`'s `key`. `request` is the request as sent, serialised: only the
   * same one takes the answer. `ask` must not reject (its failures are answers too).
   */
  hold(
    run: string,
    key: string,
    request: string,
    signal: AbortSignal,
    ask: (signal: AbortSignal) => Promise<T>,
  ): void {
    const id = `${run}\u0000${key}`;
    this.release(id);
    const abort = new AbortController();
    const timer = setTimeout(() => this.release(id), this.holdMs);
    // Held answers keep no process alive.
    timer.unref();
    const own = AbortSignal.any([signal, abort.signal]);
    this.held.set(id, { request, answer: ask(own), abort, timer, signal: own });
  }

  /**
   * The answer held for `run`'s `key` if it was asked with `request` and its request was not
   * aborted (the asker closed meanwhile); it is then no longer held. Else undefined.
   */
  take(run: string, key: string, request: string): Promise<T> | undefined {
    const id = `${run}\u0000${key}`;
    const h = this.held.get(id);
    if (!h) return undefined;
    this.held.delete(id);
    clearTimeout(h.timer);
    if (h.request === request && !h.signal.aborted) return h.answer;
    h.abort.abort();
    return undefined;
  }

  /** Drops every answer held for `run` (it failed, or will not use them), aborting their requests. */
  drop(run: string): void {
    const prefix = `${run}\u0000`;
    for (const id of [...this.held.keys()]) if (id.startsWith(prefix)) this.release(id);
  }

  /** How many answers are held (for tests). */
  get size(): number {
    return this.held.size;
  }

  private release(id: string): void {
    const h = this.held.get(id);
    if (!h) return;
    this.held.delete(id);
    clearTimeout(h.timer);
    h.abort.abort();
  }
}
