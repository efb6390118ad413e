/**
 * Runs tasks that may add more tasks (a folder walk) with at most `limit` in flight.
 * Unlike a plain limiter around `Promise.all`, nothing holds a slot while waiting for its
 * children, so a deep tree cannot starve the pool, and no array of 100k promises is built.
 *
 * The first failure, or an abort of `signal`, stops new tasks from starting; `idle()` then
 * rejects once the tasks already running have settled, so no file handle outlives the scan.
 *
 * @example
 * const pool = new TaskPool(32, signal, () => new CairnError('CANCELLED', 'Scan cancelled'));
 * pool.run(async () => { ...; pool.run(child); });
 * await pool.idle();
 */
export class TaskPool {
  private active = 0;
  // Last in, first out: the walk goes depth-first, which keeps the queue short.
  private readonly queue: (() => Promise<void>)[] = [];
  private failure: { error: unknown } | null = null;
  private waiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];

  constructor(
    private readonly limit: number,
    private readonly signal: AbortSignal | undefined,
    private readonly cancelled: () => Error,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  run(task: () => Promise<void>): void {
    if (this.failure) return;
    this.queue.push(task);
    this.pump();
  }

  /** Resolves when every task has finished, or rejects with the first failure. */
  idle(): Promise<void> {
    if (this.signal?.aborted) this.fail(this.cancelled());
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.settle();
    });
  }

  /** Stops listening to the signal; call once the pool is no longer needed. */
  dispose(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
  }

  private readonly onAbort = (): void => {
    this.fail(this.cancelled());
    this.settle();
  };

  private fail(error: unknown): void {
    if (this.failure) return;
    this.failure = { error };
    this.queue.length = 0;
  }

  private pump(): void {
    while (this.active < this.limit && this.queue.length > 0 && !this.failure) {
      const task = this.queue.pop()!;
      this.active++;
      let running: Promise<void>;
      try {
        running = task();
      } catch (error) {
        running = Promise.reject(error);
      }
      running.then(
        () => this.done(),
        (error: unknown) => {
          this.fail(error);
          this.done();
        },
      );
    }
  }

  private done(): void {
    this.active--;
    this.pump();
    this.settle();
  }

  private settle(): void {
    if (this.active > 0 || this.queue.length > 0 || this.waiters.length === 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      if (this.failure) w.reject(this.failure.error);
      else w.resolve();
    }
  }
}
