/**
 * The cap on LLM calls in flight (`maxConcurrent` of the settings, LLM_LIMITS in the contract).
 * The composition root creates ONE limiter and hands it to every model it wraps, so the DAG,
 * memory extraction and anything else calling a model share the same slots; there is no
 * module-level singleton to keep tests independent.
 *
 * Waiters are served first come, first served; a waiter whose signal aborts leaves the queue
 * at once with CANCELLED.
 *
 * @example
 * const limiter = createLimiter(10);
 * const summarizer = withConcurrencyLimit(openai, limiter);
 * const extractor = withConcurrencyLimit(otherModel, limiter); // same 10 slots
 */
import { LLM_LIMITS } from '../../../shared/contracts/llm-limits.js';
import { CairnError } from '../../../shared/errors.js';
import type { LanguageModel } from '../ports/language-model.js';
import { wrapLanguageModel } from './wrap.js';

export interface Limiter {
  readonly concurrency: number;
  /** Calls running now. */
  readonly active: number;
  /** Calls waiting for a slot. */
  readonly pending: number;
  /** The most calls that ran at once. */
  readonly peak: number;
  /** Runs `fn` when a slot is free. */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

export function createLimiter(concurrency: number = LLM_LIMITS.maxConcurrent.default): Limiter {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new CairnError('INVALID_INPUT', `max_concurrent_llm must be a positive integer, not ${concurrency}`);
  let active = 0;
  let peak = 0;
  const queue: { start: () => void }[] = [];

  const acquire = (signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.reject(cancelled(signal.reason));
    if (active < concurrency) {
      active += 1;
      peak = Math.max(peak, active);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const index = queue.indexOf(waiter);
        if (index !== -1) queue.splice(index, 1);
        reject(cancelled(signal?.reason));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
  };

  const release = () => {
    const next = queue.shift();
    // The slot passes straight to the next waiter, so `active` never dips and lets a newcomer jump the queue.
    if (next) next.start();
    else active -= 1;
  };

  return {
    concurrency,
    get active() {
      return active;
    },
    get pending() {
      return queue.length;
    },
    get peak() {
      return peak;
    },
    async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      await acquire(signal);
      try {
        return await fn();
      } finally {
        release();
      }
    },
  };
}

/** Every call of the model takes a slot of the shared limiter for its duration. */
export function withConcurrencyLimit(model: LanguageModel, limiter: Limiter): LanguageModel {
  return wrapLanguageModel(model, (call, next) => limiter.run(next, call.options.signal));
}

function cancelled(cause: unknown): CairnError {
  return new CairnError('CANCELLED', 'The LLM call was cancelled while waiting for a slot', { cause, retryable: false });
}
