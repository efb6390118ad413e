/**
 * A concurrency limit whose waiters start highest priority first (first come, first served
 * among equals). The DAG gives each task the number of calls still ahead of it on the way to
 * the root, so the longest chains start first and the end of a run is not one deep directory's
 * summaries trickling up one level at a time while the other slots sit idle (list scheduling by
 * level, which is optimal or close to it for trees of equal-length tasks).
 *
 * @example
 * const limit = priorityLimit(32);
 * await limit(3, () => summarizeDeepFile());   // starts before queued tasks of priority < 3
 */
export type PriorityLimit = <T>(priority: number, fn: () => Promise<T>) => Promise<T>;

interface Waiter {
  priority: number;
  seq: number;
  start(): void;
}

export function priorityLimit(concurrency: number): PriorityLimit {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, not ${concurrency}`);
  let active = 0;
  let seq = 0;
  const heap: Waiter[] = [];

  const before = (a: Waiter, b: Waiter) => a.priority > b.priority || (a.priority === b.priority && a.seq < b.seq);

  const push = (waiter: Waiter) => {
    heap.push(waiter);
    for (let i = heap.length - 1; i > 0; ) {
      const up = (i - 1) >> 1;
      if (!before(heap[i]!, heap[up]!)) break;
      [heap[i], heap[up]] = [heap[up]!, heap[i]!];
      i = up;
    }
  };

  const pop = (): Waiter | undefined => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let best = i;
        if (left < heap.length && before(heap[left]!, heap[best]!)) best = left;
        if (right < heap.length && before(heap[right]!, heap[best]!)) best = right;
        if (best === i) break;
        [heap[i], heap[best]] = [heap[best]!, heap[i]!];
        i = best;
      }
    }
    return top;
  };

  const release = () => {
    // The slot passes straight to the next waiter, so a newcomer cannot jump the queue.
    const next = pop();
    if (next) next.start();
    else active -= 1;
  };

  return async <T>(priority: number, fn: () => Promise<T>): Promise<T> => {
    if (active < concurrency) active += 1;
    else await new Promise<void>((resolve) => push({ priority, seq: seq++, start: resolve }));
    try {
      return await fn();
    } finally {
      release();
    }
  };
}
