/**
 * The consumer side of the outbox: claim, run, complete or fail, with a few messages in flight.
 *
 * Each message's state is durable before and after its handler runs, so a run killed midway
 * resumes with the messages that had not completed; completed ones never run again. A message
 * whose handler was running when the process died runs again (at least once), so handlers make
 * their writes idempotent (ContextFS writes whole files atomically, the index upserts by id).
 */
import { CairnError, errorMessage } from '../../../shared/errors.js';
import type { Logger } from '../ports/logger.js';
import type { Outbox, SemanticMsg } from './outbox.js';

export type OutboxHandler<T = void> = (message: SemanticMsg, ctx: { signal: AbortSignal }) => Promise<T>;

export interface RunOutboxOptions<T = void> {
  /** Messages handled at once. Default 1. */
  concurrency?: number;
  /** Stops claiming; handlers see it aborted, and a message whose handler then throws goes back to pending. */
  signal?: AbortSignal;
  /** Keep waiting for new messages once the outbox is drained, until `signal` aborts. Default false. */
  follow?: boolean;
  /** Which pending messages this run takes, asked at each claim (so what it says may change during the run). Default: all. */
  filter?: (message: SemanticMsg) => boolean;
  /** Called once the message's completion is durable, with what its handler returned. */
  onCompleted?: (message: SemanticMsg, value: T) => void;
  /** Called once the message's failure is durable, with the error as recorded. Default: a warning in the log. */
  onFailed?: (message: SemanticMsg, error: CairnError) => void;
  logger?: Logger;
}

export interface RunOutboxResult {
  completed: number;
  failed: number;
  /** Messages handed back to pending because the run was stopped while they ran. */
  released: number;
}

/**
 * Drains the outbox: runs `handler` on every pending message, completing the message when the
 * handler resolves and failing it (with the error) when it throws. Resolves once no message is
 * pending (or, with `follow`, once `signal` aborts) and every handler has settled. Rejects only
 * when the outbox itself fails (an I/O error), after stopping the other lanes.
 *
 * @example
 * const controller = new AbortController();
 * const result = await runOutbox(outbox, async (message, { signal }) => {
 *   await summarizeTree(message.uri, { signal });
 * }, { concurrency: 2, signal: controller.signal });
 * result.completed; // 3
 */
export async function runOutbox<T = void>(outbox: Outbox, handler: OutboxHandler<T>, options: RunOutboxOptions<T> = {}): Promise<RunOutboxResult> {
  const result: RunOutboxResult = { completed: 0, failed: 0, released: 0 };
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const stop = new AbortController();
  if (options.signal?.aborted) return result;
  const onAbort = () => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });

  // Idle lanes (in follow mode) sleep until a message becomes pending. The generation counter
  // closes the gap between a claim that found nothing and the lane starting to wait.
  let generation = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    generation += 1;
    for (const resolve of waiters) resolve();
    waiters.clear();
  };
  const unsubscribe = outbox.onChange((change) => {
    if (change.message.status === 'pending') wake();
  });
  stop.signal.addEventListener('abort', wake, { once: true });

  const onFailed =
    options.onFailed ?? ((message: SemanticMsg, error: CairnError) => options.logger?.warn(`Outbox message for ${message.uri} failed`, { id: message.id, error: error.message }));

  const handle = async (message: SemanticMsg): Promise<void> => {
    let value: T;
    try {
      value = await handler(message, { signal: stop.signal });
    } catch (error) {
      if (stop.signal.aborted) {
        // Left unfinished on purpose: the next run takes it again.
        await outbox.release(message.id);
        result.released += 1;
      } else {
        const cairn = CairnError.is(error) ? error : new CairnError('INTERNAL', errorMessage(error), { cause: error });
        await outbox.fail(message.id, cairn);
        result.failed += 1;
        onFailed(message, cairn);
      }
      return;
    }
    // Finished work is recorded even when the run was stopped meanwhile: it must not run again.
    await outbox.complete(message.id);
    result.completed += 1;
    options.onCompleted?.(message, value);
  };

  const lane = async (): Promise<void> => {
    while (!stop.signal.aborted) {
      const seen = generation;
      const message = await outbox.claim(options.filter);
      if (message) {
        await handle(message);
        continue;
      }
      if (!options.follow) return;
      if (generation === seen) await new Promise<void>((resolve) => waiters.add(resolve));
    }
  };

  let fatal: unknown = null;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, () =>
        lane().catch((error: unknown) => {
          fatal ??= error;
          stop.abort(error);
        }),
      ),
    );
  } finally {
    unsubscribe();
    options.signal?.removeEventListener('abort', onAbort);
  }
  if (fatal !== null) throw fatal;
  return result;
}
