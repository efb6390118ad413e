/**
 * Retries what may succeed on a second try: exponential backoff with full jitter, or exactly
 * the wait a server asks for with Retry-After (capped). Attempts are bounded, errors marked
 * not retryable are thrown at once, and a cancelled call stops waiting immediately.
 *
 * A malformed answer (LLM_BAD_RESPONSE: no JSON, or JSON of the wrong shape, after the adapter's
 * JSON repair) is retried once by default: a second answer often parses, a third rarely does,
 * and each costs tokens. The retry of a JSON call restates what was wrong and the JSON Schema
 * it must follow, which small models need more than a second roll of the dice.
 * `retryLimits` sets such caps per code.
 *
 * @example
 * const model = withRetry(base, { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 20_000 });
 * // in tests: record the waits instead of sleeping
 * const waits: number[] = [];
 * const fast = withRetry(base, { sleep: async (ms) => void waits.push(ms) });
 */
import { z } from 'zod';
import { CairnError, type ErrorCode } from '../../../shared/errors.js';
import type { ChatMessage, CompleteJsonOptions, LanguageModel } from '../ports/language-model.js';
import { wrapLanguageModel } from './wrap.js';

export interface RetryEvent {
  /** The attempt that failed (1-based). */
  attempt: number;
  /** How long the next attempt waits. */
  delayMs: number;
  /** Whether the wait came from the server's Retry-After or from backoff. */
  source: 'retry-after' | 'backoff';
  error: CairnError;
}

export interface RetryOptions {
  /** Attempts in all, the first included. Default 4. */
  maxAttempts?: number;
  /** The backoff ceiling of the first retry; it doubles each retry. Default 500 ms. */
  baseDelayMs?: number;
  /** The backoff ceiling never grows past this. Default 20 s. */
  maxDelayMs?: number;
  /** The most a server's Retry-After makes us wait. Default 60 s. */
  maxRetryAfterMs?: number;
  /** 'full' waits a uniform random time up to the ceiling (AWS "full jitter"); 'none' waits the ceiling. Default 'full'. */
  jitter?: 'full' | 'none';
  /** Random numbers in [0, 1) for the jitter. Default Math.random. */
  random?: () => number;
  /** How waiting is done; tests pass one that records the delay and returns at once. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Most retries caused by errors of a code. Default { LLM_BAD_RESPONSE: 1 }. */
  retryLimits?: Partial<Record<ErrorCode, number>>;
  onRetry?: (event: RetryEvent) => void;
}

export const DEFAULT_RETRY = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
} as const;

export function withRetry(model: LanguageModel, options: RetryOptions = {}): LanguageModel {
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_RETRY.maxAttempts);
  const baseDelayMs = options.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs;
  const random = options.random ?? Math.random;
  const wait = options.sleep ?? sleep;
  const limits: Partial<Record<ErrorCode, number>> = options.retryLimits ?? { LLM_BAD_RESPONSE: 1 };

  return wrapLanguageModel(model, async (call, next) => {
    const signal = call.options.signal;
    const retriesByCode = new Map<ErrorCode, number>();
    let override: { messages: ChatMessage[] } | undefined;
    for (let attempt = 1; ; attempt += 1) {
      if (signal?.aborted) throw cancelled(signal.reason);
      try {
        return await next(override);
      } catch (error) {
        if (!CairnError.is(error) || !error.retryable) throw error;
        const used = retriesByCode.get(error.code) ?? 0;
        const limit = limits[error.code];
        if (attempt >= maxAttempts || (limit !== undefined && used >= limit)) throw gaveUp(error, attempt);
        retriesByCode.set(error.code, used + 1);
        if (error.code === 'LLM_BAD_RESPONSE' && call.kind === 'completeJson') override = { messages: restated(call.options as CompleteJsonOptions<unknown>, error) };

        const retryAfter = error.details?.retryAfterMs;
        const fromServer = typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter >= 0;
        const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
        const delayMs = fromServer ? Math.min(retryAfter, maxRetryAfterMs) : Math.round(options.jitter === 'none' ? ceiling : random() * ceiling);
        options.onRetry?.({ attempt, delayMs, source: fromServer ? 'retry-after' : 'backoff', error });
        await wait(delayMs, signal);
      }
    }
  });
}

/** The call's messages and one more saying what was wrong with the answer and the schema to follow. */
function restated(options: CompleteJsonOptions<unknown>, error: CairnError): ChatMessage[] {
  let schema = '';
  try {
    schema = ` It must follow this JSON Schema:\n${JSON.stringify(z.toJSONSchema(options.schema, { io: 'input' }))}`;
  } catch {
    // A schema JSON Schema cannot say: the prompt's own description of the answer stands.
  }
  const problem = error.message.replace(/^[\w.-]+ [^:]+: /, '');
  return [...options.messages, { role: 'user', content: `Your answer could not be used: ${problem}. Answer again with one JSON value and nothing else.${schema}` }];
}

/** Waits `ms`, or rejects with CANCELLED as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled(signal.reason));
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function cancelled(cause: unknown): CairnError {
  return new CairnError('CANCELLED', 'The LLM call was cancelled', { cause, retryable: false });
}

function gaveUp(error: CairnError, attempts: number): CairnError {
  if (attempts === 1) return error;
  return new CairnError(error.code, `${error.message} (gave up after ${attempts} attempts)`, {
    cause: error,
    retryable: error.retryable,
    details: { ...error.details, attempts },
  });
}
