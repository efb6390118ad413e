/**
 * Batches a fast stream of events for a UI: at most one flush per `intervalMs` (10 a second by
 * default), every event delivered once, in the order it came. A quiet stream is not delayed: the
 * first event after a pause goes out on the next tick.
 */
import type { EngineEvent } from '../../shared/contracts/api.js';

export interface EventCoalescer<T> {
  /** Adds an event; bound, so it can be passed as a listener (`host.onEvent(coalescer.push)`). */
  readonly push: (event: T) => void;
  /** Delivers what is buffered now. */
  flush(): void;
  /** Delivers what is buffered and stops; later pushes are dropped. */
  dispose(): void;
}

/**
 * @example
 * const coalescer = coalesceEvents((events) => store.getState().applyEvents(events), { intervalMs: 100 });
 * const unsubscribe = host.onEvent(coalescer.push);
 * // later
 * unsubscribe();
 * coalescer.dispose();
 */
export function coalesceEvents<T = EngineEvent>(listener: (events: T[]) => void, options: { intervalMs?: number } = {}): EventCoalescer<T> {
  const intervalMs = Math.max(0, options.intervalMs ?? 100);
  let buffer: T[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastFlush = Number.NEGATIVE_INFINITY;
  let disposed = false;

  const flush = () => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    lastFlush = performance.now();
    listener(batch);
  };

  const untilAllowed = () => Math.max(0, Math.ceil(lastFlush + intervalMs - performance.now()));

  // Timers may fire a little early (they count whole milliseconds): wait out the rest then.
  const onTimer = () => {
    timer = null;
    const wait = untilAllowed();
    if (wait > 0) timer = setTimeout(onTimer, wait);
    else flush();
  };

  const push = (event: T) => {
    if (disposed) return;
    buffer.push(event);
    // Events pushed in the same tick share a flush even after a quiet spell.
    if (timer === null) timer = setTimeout(onTimer, untilAllowed());
  };

  return {
    push,
    flush,
    dispose() {
      if (disposed) return;
      flush();
      disposed = true;
    },
  };
}
