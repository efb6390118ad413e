/**
 * The usual stack of wrappers around a provider, in the order that makes each one right:
 *
 *   metering → retry → budget → concurrency limit → circuit breaker → provider
 *
 * - metering outside retry counts logical calls (retries are counted by `onRetry`);
 * - retry outside the limiter frees the slot while it waits out a backoff or a Retry-After;
 * - the budget inside retry reserves per attempt, so a failed attempt gives its tokens back;
 * - the breaker inside the limiter sees every attempt, and is asked again when a queued call
 *   gets its slot: once it opens, the calls still queued fail fast instead of reaching the server.
 *
 * @example
 * const limiter = createLimiter(settings.maxConcurrent);   // once per configuration (settings/llm-stack.ts)
 * const stats = createLlmStats();
 * const { model, breaker } = createReliableModel(createOpenAIModel({...}), { limiter, stats, budget: createTokenBudget({ maxTokens }) });
 */
import type { LanguageModel } from '../ports/language-model.js';
import { withBudget, type TokenBudget, type WithBudgetOptions } from './budget.js';
import { createCircuitBreaker, withCircuitBreaker, type CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker.js';
import { withConcurrencyLimit, type Limiter } from './limiter.js';
import { withRetry, type RetryOptions } from './retry.js';
import { withMetering, type LlmStats } from './stats.js';

export interface ReliableModelOptions {
  /** The one process-wide limiter. */
  limiter: Limiter;
  /** false: no retries. */
  retry?: RetryOptions | false;
  /** A shared breaker, options for a new one, or false for none. */
  breaker?: CircuitBreaker | CircuitBreakerOptions | false;
  budget?: TokenBudget;
  budgetOptions?: WithBudgetOptions;
  stats?: LlmStats;
}

export interface ReliableModel {
  model: LanguageModel;
  breaker: CircuitBreaker | undefined;
}

export function createReliableModel(base: LanguageModel, options: ReliableModelOptions): ReliableModel {
  let model = base;
  let breaker: CircuitBreaker | undefined;
  if (options.breaker !== false) {
    breaker = options.breaker && 'run' in options.breaker ? options.breaker : createCircuitBreaker({ name: `${base.provider} ${base.modelId}`, ...(options.breaker ?? {}) });
    model = withCircuitBreaker(model, breaker);
  }
  model = withConcurrencyLimit(model, options.limiter);
  if (options.budget) model = withBudget(model, options.budget, options.budgetOptions);
  if (options.retry !== false) {
    const retry = options.retry ?? {};
    const stats = options.stats;
    model = withRetry(model, {
      ...retry,
      onRetry: (event) => {
        stats?.recordRetry();
        retry.onRetry?.(event);
      },
    });
  }
  if (options.stats) model = withMetering(model, options.stats);
  return { model, breaker };
}
