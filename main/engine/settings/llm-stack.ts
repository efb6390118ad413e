/**
 * The LLM behind summaries, for one configuration: the provider's model and the limiter, and per
 * run a breaker and llmSummarizer over fallback metering → call log → metering → retry →
 * budget → limiter → breaker → provider (see llm/compose.ts for that order). The engine's LLM
 * runtime (llm-runtime.ts) builds one whenever the settings change; see docs/llm-runtime.md.
 *
 * The breaker is the run's, so each run starts closed: one that opened for a run on a refused key
 * (401/403), an unknown model (404) or an account out of quota stops that run's calls, and the
 * next run (the next watch cycle, the next click) asks the server again, which is how a person
 * who fixed the setting or topped up the account sees it work.
 *
 * The provider comes from the host (`createModel`, the OpenAI adapter in the CLI and the
 * worker), so this module stays inside the engine and loads no SDK. The API key goes into
 * `createModel` and nowhere else: `describeLlm` and the call log name the model and the server.
 *
 * @example
 * const llm = createLlmStack(config, { createModel, logger, stats, callLog });
 * const run = llm.newRun();            // a fresh token budget and breaker, the same limiter
 * await dag(run.summarizer);
 * run.budget?.snapshot();              // spent, refusals, exhausted
 */
import type { LlmCallRecord } from '../../../shared/contracts/api.js';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import { failureCause } from '../llm/failure-cause.js';
import type { LlmCause } from '../../../shared/llm-cause.js';
import { createTokenBudget, type TokenBudget } from '../llm/budget.js';
import { createCircuitBreaker, type CircuitBreaker, type CircuitBreakerOptions } from '../llm/circuit-breaker.js';
import { createReliableModel } from '../llm/compose.js';
import { createLimiter } from '../llm/limiter.js';
import type { RetryOptions } from '../llm/retry.js';
import type { LlmStats } from '../llm/stats.js';
import { wrapLanguageModel } from '../llm/wrap.js';
import type { Clock } from '../ports/clock.js';
import { systemClock } from '../ports/clock.js';
import type { LanguageModel } from '../ports/language-model.js';
import type { Logger } from '../ports/logger.js';
import { llmSummarizer } from '../summarize/llm-summarizer.js';
import type { NodeSummarizer } from '../summarize/types.js';

export interface LlmConfig {
  /** Absent: the SDK's default (api.openai.com). */
  baseURL?: string;
  model: string;
  /** '' for local servers that need none. */
  apiKey: string;
  maxConcurrent: number;
  /** Tokens (input + output) one run may spend; absent: no limit. */
  tokenBudget?: number;
  /** Per-request bound in ms; absent: the adapter's. */
  timeoutMs?: number;
  /** Circuit breaker cool-down in ms; absent: the breaker's. */
  cooldownMs?: number;
  /** Read answers as SSE streams. */
  stream?: boolean;
}

/** What a provider needs; the OpenAI adapter's options are a superset. */
export interface ModelOptions {
  baseURL?: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  stream?: boolean;
  logger?: Logger;
}

export type ModelFactory = (options: ModelOptions) => LanguageModel;

export interface LlmStackOptions {
  createModel: ModelFactory;
  logger: Logger;
  /** Counters to add to (the engine keeps one across settings changes). */
  stats: LlmStats;
  /** Where logical calls are recorded for the monitor. */
  callLog: CallLog;
  /** Retry policy; tests shorten the backoff. Default: withRetry's defaults. */
  retry?: RetryOptions | undefined;
  /** Circuit breaker settings (tests raise the threshold). Default: the breaker's (opens after 5 consecutive failed attempts). */
  breaker?: CircuitBreakerOptions | undefined;
  clock?: Clock;
}

export interface LlmRun {
  summarizer: NodeSummarizer;
  /** The same run's model (call log, metering, retry, budget, limiter, breaker), for the memory engine. */
  model: LanguageModel;
  budget: TokenBudget | undefined;
}

export interface LlmStack {
  config: LlmConfig;
  /** The latest run's breaker (a closed one before the first run). */
  readonly breaker: CircuitBreaker;
  /** A summarizer with a fresh token budget and breaker, sharing the limiter, stats and call log. */
  newRun(): LlmRun;
}

export function createLlmStack(config: LlmConfig, options: LlmStackOptions): LlmStack {
  const { stats, callLog } = options;
  const base = options.createModel({
    ...(config.baseURL !== undefined ? { baseURL: config.baseURL } : {}),
    apiKey: config.apiKey,
    model: config.model,
    logger: options.logger,
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    ...(config.stream !== undefined ? { stream: config.stream } : {}),
  });
  const limiter = createLimiter(config.maxConcurrent);
  const newBreaker = () =>
    createCircuitBreaker({
      name: `${base.provider} ${base.modelId}`,
      ...(config.cooldownMs !== undefined ? { cooldownMs: config.cooldownMs } : {}),
      ...(options.breaker ?? {}),
    });
  let breaker = newBreaker();
  const newRun = (): LlmRun => {
    const budget = config.tokenBudget !== undefined ? createTokenBudget({ maxTokens: config.tokenBudget }) : undefined;
    breaker = newBreaker();
    const { model } = createReliableModel(base, { limiter, stats, breaker, ...(budget ? { budget } : {}), ...(options.retry ? { retry: options.retry } : {}) });
    const logged = withCallLog(model, callLog, options.clock);
    return { summarizer: withFallbackMetering(llmSummarizer(logged), stats), model: logged, budget };
  };
  return {
    config,
    get breaker() {
      return breaker;
    },
    newRun,
  };
}

/** One line naming the model and the server, for logs; never the key. */
export function describeLlm(config: Pick<LlmConfig, 'model' | 'baseURL'>): string {
  return `${config.model} at ${config.baseURL ?? 'api.openai.com'}`;
}

/** The latest logical calls, newest first, at most `size`. */
export interface CallLog {
  record(call: LlmCallRecord): void;
  recent(): LlmCallRecord[];
  subscribe(listener: () => void): () => void;
}

export function createCallLog(options: { size?: number; clock?: Clock | undefined } = {}): CallLog {
  const size = options.size ?? 50;
  const calls: LlmCallRecord[] = [];
  const listeners = new Set<() => void>();
  return {
    record(call) {
      calls.unshift(call);
      if (calls.length > size) calls.length = size;
      for (const listener of [...listeners]) listener();
    },
    recent: () => calls.map((c) => ({ ...c })),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

function withCallLog(model: LanguageModel, log: CallLog, clock: Clock = systemClock): LanguageModel {
  return wrapLanguageModel(model, async (_call, next) => {
    const at = clock.now();
    const started = performance.now();
    const done = (outcome: string, inputTokens = 0, outputTokens = 0, cause?: LlmCause) =>
      log.record({ at: at.toISOString(), ms: Math.round(performance.now() - started), inputTokens, outputTokens, outcome, ...(cause !== undefined ? { cause } : {}) });
    try {
      const result = await next();
      done('ok', result.usage.inputTokens, result.usage.outputTokens);
      return result;
    } catch (error) {
      done(CairnError.is(error) ? error.code : 'INTERNAL', 0, 0, failureCause(error));
      throw error;
    }
  });
}

/**
 * The DAG falls back when a summarizer throws; counting it here puts fallbacks and their
 * reasons (the error code, e.g. LLM_BUDGET_EXHAUSTED) in the same stats as the calls.
 */
function withFallbackMetering(inner: NodeSummarizer, stats: LlmStats): NodeSummarizer {
  const record = (error: unknown) => {
    stats.recordFallback(CairnError.is(error) ? error.code : errorMessage(error).slice(0, 80));
    throw error;
  };
  return {
    id: inner.id,
    ...(inner.provenance !== undefined ? { provenance: inner.provenance } : {}),
    ...(inner.maxChildren !== undefined ? { maxChildren: inner.maxChildren } : {}),
    summarizeFile: (input) => inner.summarizeFile(input).catch(record),
    summarizeDirectory: (input) => inner.summarizeDirectory(input).catch(record),
  };
}
