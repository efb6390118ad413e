/**
 * The engine's one LLM runtime, for every host (docs/llm-runtime.md): built when the settings
 * turn the LLM on and configure it, rebuilt when they change (runs already going keep the
 * summarizer they started with), and metered for the LLM monitor and `cairn ingest --json`.
 * The counters and the call log outlive rebuilds; the provider, the limiter and the breaker
 * belong to one configuration; the token budget to one summary run (`startRun`).
 *
 * Stats go out as `llm/stats-changed` events at most once per `throttleMs` while they change.
 *
 * @example
 * const runtime = createLlmRuntime({ createModel: createOpenAIModel, logger, emit: broadcast });
 * runtime.apply(store.current(), store.apiKey());
 * const summarizer = runtime.startRun() ?? extractiveSummarizer();
 */
import type { EngineEvent, LlmSettings, LlmStatsView } from '../../../shared/contracts/api.js';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import { estimateCostUsd } from '../llm/prices.js';
import type { CircuitBreakerOptions } from '../llm/circuit-breaker.js';
import type { RetryOptions } from '../llm/retry.js';
import { createLlmStats } from '../llm/stats.js';
import type { TokenBudget } from '../llm/budget.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { LanguageModel } from '../ports/language-model.js';
import type { Logger } from '../ports/logger.js';
import type { NodeSummarizer } from '../summarize/types.js';
import { createCallLog, createLlmStack, describeLlm, type LlmConfig, type LlmStack, type ModelFactory } from './llm-stack.js';

export interface LlmRuntimeOptions {
  /** The provider; without one the engine has no LLM and every run is extractive. */
  createModel?: ModelFactory | undefined;
  logger: Logger;
  emit(event: EngineEvent): void;
  clock?: Clock;
  /** Least time between two stats events. Default 250 ms. */
  throttleMs?: number;
  /** Retry policy (tests shorten the backoff). */
  retry?: RetryOptions | undefined;
  /** Circuit breaker settings (tests raise the threshold). */
  breaker?: CircuitBreakerOptions | undefined;
  /** Read answers as streams; the breaker's cool-down. Options of this engine, not settings. */
  stream?: boolean | undefined;
  cooldownMs?: number | undefined;
}

export interface TestResult {
  ok: boolean;
  ms: number;
  model: string;
  message: string;
}

export interface LlmRuntime {
  /** Builds the LLM for these settings, or drops it (extractive) when they turn it off. */
  apply(settings: LlmSettings, apiKey: string | null): void;
  readonly active: boolean;
  /**
   * Starts a summary run: a summarizer with a fresh token budget, which the monitor shows from
   * now on, or null when there is no LLM. Call it once per run, never to look (an estimate).
   */
  startRun(): NodeSummarizer | null;
  /**
   * Starts a run of the memory engine (one sessions command): the same stack's model with a
   * fresh budget and breaker, and where its fallbacks to the rules are counted; null without an LLM.
   */
  startModelRun(): LlmModelRun | null;
  stats(): LlmStatsView;
  /** One tiny request with these settings, outside the stats. */
  test(settings: LlmSettings, apiKey: string | null, signal: AbortSignal): Promise<TestResult>;
  dispose(): void;
}

export interface LlmModelRun {
  model: LanguageModel;
  /** A caller used the rules instead of the model's answer (reason: the error code), for the LLM monitor. */
  recordFallback(reason: string): void;
}

/** The settings as the stack's config, or null when they do not configure an LLM. */
export function llmConfigOf(settings: LlmSettings, apiKey: string | null): LlmConfig | null {
  if (!settings.enabled) return null;
  if (settings.baseUrl === '' && apiKey === null) return null;
  return {
    ...(settings.baseUrl !== '' ? { baseURL: settings.baseUrl } : {}),
    model: settings.model,
    apiKey: apiKey ?? '',
    maxConcurrent: settings.maxConcurrent,
    ...(settings.tokenBudget !== null ? { tokenBudget: settings.tokenBudget } : {}),
    timeoutMs: settings.timeoutMs,
  };
}

export function createLlmRuntime(options: LlmRuntimeOptions): LlmRuntime {
  const clock = options.clock ?? systemClock;
  const throttleMs = options.throttleMs ?? 250;
  const stats = createLlmStats({ clock });
  const callLog = createCallLog({ size: 50, clock });
  let stack: LlmStack | null = null;
  let lastBudget: TokenBudget | undefined;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let lastEmit = Number.NEGATIVE_INFINITY;
  let disposed = false;

  const view = (): LlmStatsView => {
    const s = stats.snapshot();
    const model = stack?.config.model ?? null;
    const budget = lastBudget?.snapshot();
    return {
      active: stack !== null,
      model,
      baseUrl: stack?.config.baseURL ?? null,
      calls: s.calls,
      inFlight: s.inFlight,
      succeeded: s.succeeded,
      failed: s.failed,
      retries: s.retries,
      fallbacks: s.fallbacks,
      fallbackReasons: s.fallbackReasons,
      inputTokens: s.inputTokens,
      outputTokens: s.outputTokens,
      costUsd: model === null ? null : estimateCostUsd({ inputTokens: s.inputTokens, outputTokens: s.outputTokens }, model),
      breaker: stack?.breaker.state ?? null,
      budget: budget
        ? { maxTokens: budget.maxTokens, used: budget.spent + budget.reserved, left: budget.remaining, spent: budget.spent, refusals: budget.refusals, exhausted: budget.exhausted }
        : null,
      errors: s.errors,
      recent: callLog.recent(),
    };
  };

  const emitNow = () => {
    timer = null;
    if (disposed) return;
    lastEmit = performance.now();
    options.emit({ type: 'llm/stats-changed', stats: view() });
  };
  // Trailing: the last change always goes out, at most one event per throttleMs.
  const changed = () => {
    if (disposed || timer !== null) return;
    timer = setTimeout(emitNow, Math.max(0, Math.ceil(lastEmit + throttleMs - performance.now())));
  };
  const offStats = stats.subscribe(changed);
  const offCalls = callLog.subscribe(changed);

  return {
    apply(settings, apiKey) {
      const base = llmConfigOf(settings, apiKey);
      const config = base && { ...base, ...(options.stream ? { stream: true } : {}), ...(options.cooldownMs !== undefined ? { cooldownMs: options.cooldownMs } : {}) };
      stack = config && options.createModel ? createLlmStack(config, { createModel: options.createModel, logger: options.logger, stats, callLog, clock, retry: options.retry, breaker: options.breaker }) : null;
      lastBudget = undefined;
      if (options.createModel) options.logger.info(stack ? `Summaries use ${describeLlm(stack.config)}` : 'Summaries are extractive (no LLM configured)');
      changed();
    },
    get active() {
      return stack !== null;
    },
    startRun() {
      if (!stack) return null;
      const run = stack.newRun();
      lastBudget = run.budget;
      // The monitor shows the new run's budget at once, not at its first call.
      changed();
      return run.summarizer;
    },
    startModelRun() {
      if (!stack) return null;
      const run = stack.newRun();
      lastBudget = run.budget;
      changed();
      return { model: run.model, recordFallback: (reason) => stats.recordFallback(reason) };
    },
    stats: view,
    async test(settings, apiKey, signal) {
      const started = performance.now();
      const config = llmConfigOf({ ...settings, enabled: true }, apiKey);
      const result = (ok: boolean, message: string): TestResult => ({ ok, ms: Math.round(performance.now() - started), model: settings.model, message });
      if (!options.createModel) return result(false, 'This engine has no LLM provider');
      if (!config) return result(false, 'Set a base URL or an API key first');
      try {
        const model = options.createModel({ ...config, logger: options.logger, timeoutMs: Math.min(config.timeoutMs ?? 15_000, 15_000) });
        const answer = await model.complete({ messages: [{ role: 'user', content: 'Reply with the single word OK.' }], maxOutputTokens: 5, temperature: 0, signal });
        return result(true, `${describeLlm(config)} answered ${JSON.stringify(answer.text.trim().slice(0, 40))}`);
      } catch (error) {
        return result(false, CairnError.is(error) ? `${error.code}: ${error.message}` : errorMessage(error));
      }
    },
    dispose() {
      disposed = true;
      offStats();
      offCalls();
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}
