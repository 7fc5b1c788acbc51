// One drain at a time of a queue kept in the database: woken on a timer and after every command,
// a wake during a drain runs one more drain afterwards (so nothing committed meanwhile waits for
// the next tick). The queues themselves (claims, leases, retries) belong to their workers.

export class PollingLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly drain: () => Promise<void>,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Looks for due work now. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error) => {
        if (!this.stopped) this.onError(error);
      })
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Resolves once the drain under way (and any it asked for) is over. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** No more drains; resolves when the one under way is over. */
  async stop(beforeWaiting?: () => void): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    beforeWaiting?.();
    await this.idle();
  }

  get isStopped(): boolean {
    return this.stopped;
  }
}
