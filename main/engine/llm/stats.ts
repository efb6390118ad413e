/**
 * Counters for the UI's LLM monitor and the CLI summary: calls, failures by code, retries,
 * repaired answers, tokens and fallbacks. One stats object can meter several models.
 *
 * `withMetering` counts logical calls (wrap it outermost); retries come from `withRetry`'s
 * `onRetry` (`createReliableModel` wires it), fallbacks from whoever falls back (the DAG calls
 * `recordFallback`).
 *
 * @example
 * const stats = createLlmStats();
 * const model = withMetering(base, stats);
 * const off = stats.subscribe((s) => ui.update(s));
 * stats.snapshot(); // { calls: 12, succeeded: 11, failed: 1, retries: 3, inputTokens: 5400, ... }
 */
import { CairnError } from '../../../shared/errors.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { LanguageModel } from '../ports/language-model.js';
import { wrapLanguageModel } from './wrap.js';

export interface LlmStatsSnapshot {
  calls: number;
  inFlight: number;
  succeeded: number;
  failed: number;
  retries: number;
  /** Answers that parsed only after JSON repair. */
  repaired: number;
  fallbacks: number;
  inputTokens: number;
  outputTokens: number;
  /** Failed calls by error code (LLM_RATE_LIMITED, TIMEOUT, LLM_CIRCUIT_OPEN, ...). */
  errors: Record<string, number>;
  lastError?: { code: string; message: string; at: string };
  /** Reasons given for fallbacks, with counts. */
  fallbackReasons: Record<string, number>;
}

export interface LlmStats {
  snapshot(): LlmStatsSnapshot;
  /** Called with a fresh snapshot after every change. Returns an unsubscribe function. */
  subscribe(listener: (snapshot: LlmStatsSnapshot) => void): () => void;
  recordRetry(): void;
  /** A caller used an offline or fallback answer instead of the model (reason: an error code or a short phrase). */
  recordFallback(reason?: string): void;
  /** Used by withMetering. */
  recordStart(): void;
  recordSuccess(usage: { inputTokens: number; outputTokens: number }, repaired?: boolean): void;
  recordFailure(error: unknown): void;
}

export function createLlmStats(options: { clock?: Clock } = {}): LlmStats {
  const clock = options.clock ?? systemClock;
  const s: LlmStatsSnapshot = { calls: 0, inFlight: 0, succeeded: 0, failed: 0, retries: 0, repaired: 0, fallbacks: 0, inputTokens: 0, outputTokens: 0, errors: {}, fallbackReasons: {} };
  const listeners = new Set<(snapshot: LlmStatsSnapshot) => void>();
  const snapshot = (): LlmStatsSnapshot => ({ ...s, errors: { ...s.errors }, fallbackReasons: { ...s.fallbackReasons }, ...(s.lastError ? { lastError: { ...s.lastError } } : {}) });
  const changed = () => {
    if (listeners.size === 0) return;
    const copy = snapshot();
    for (const listener of [...listeners]) listener(copy);
  };

  return {
    snapshot,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    recordRetry() {
      s.retries += 1;
      changed();
    },
    recordFallback(reason = 'unspecified') {
      s.fallbacks += 1;
      s.fallbackReasons[reason] = (s.fallbackReasons[reason] ?? 0) + 1;
      changed();
    },
    recordStart() {
      s.calls += 1;
      s.inFlight += 1;
      changed();
    },
    recordSuccess(usage, repaired = false) {
      s.inFlight -= 1;
      s.succeeded += 1;
      s.inputTokens += usage.inputTokens;
      s.outputTokens += usage.outputTokens;
      if (repaired) s.repaired += 1;
      changed();
    },
    recordFailure(error) {
      s.inFlight -= 1;
      s.failed += 1;
      const code = CairnError.is(error) ? error.code : 'INTERNAL';
      s.errors[code] = (s.errors[code] ?? 0) + 1;
      s.lastError = { code, message: error instanceof Error ? error.message : String(error), at: clock.now().toISOString() };
      changed();
    },
  };
}

export function withMetering(model: LanguageModel, stats: LlmStats): LanguageModel {
  return wrapLanguageModel(model, async (_call, next) => {
    stats.recordStart();
    try {
      const result = await next();
      stats.recordSuccess(result.usage, (result as { repaired?: unknown }).repaired === true);
      return result;
    } catch (error) {
      stats.recordFailure(error);
      throw error;
    }
  });
}
