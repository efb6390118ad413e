/**
 * One run of the memory engine with an LLM (one sessions command): the run's model (the engine's
 * one LLM runtime: budget, breaker, retry with the schema restated, call log) and the tally of what
 * it answered and what fell back to the rules. Every LLM path of the memory engine (bucket
 * batches, chain windows, topic labels, dedup decisions) reports each unit here, so a fallback is
 * counted once, with its cause (llm/failure-cause.ts), in the run's report, in the LLM monitor
 * (`onFallback`) and, through the report, in the memory processor's stats.
 *
 * @example
 * const llm = createMemoryLlm(run.model, { onFallback: (cause, error) => run.recordFallback(codeOf(error)) });
 * try { answer = await llm.model.completeJson(...); llm.answered('buckets'); }
 * catch (error) { const cause = llm.fellBack('buckets', error); item.reason = `rules (LLM fallback: ${describeCause(cause, englishCause)})`; }
 * llm.report(); // { model, stages: { buckets: { llm: 2, fallbacks: 1 } }, fallbacks: 1, fallback_causes: [{ cause: { code: 'http_status', status: 500, message: 'x' }, count: 1 }] }
 */
import { CairnError } from '../../../shared/errors.js';
import type { Extractor, MemoryLlmReport } from '../../../shared/types/memory.js';
import { countCause, mergeCauses } from '../../../shared/fallback-causes.js';
import { describeCause, englishCause, type LlmCause } from '../../../shared/llm-cause.js';
import { failureCause } from '../llm/failure-cause.js';
import type { LanguageModel } from '../ports/language-model.js';
import type { Logger } from '../ports/logger.js';
import type { LlmModelRun } from '../settings/llm-runtime.js';

/** The units an LLM answers for: a batch of messages, a window's chains, a topic label, a dedup decision. */
export type MemoryLlmStage = 'buckets' | 'chains' | 'labels' | 'dedup';

export interface MemoryLlm {
  readonly model: LanguageModel;
  /** What the items the model made record as their extractor. */
  readonly extractor: Extractor;
  answered(stage: MemoryLlmStage): void;
  /** The unit uses the rules instead: counted under its cause, which is returned for the item's reason. */
  fellBack(stage: MemoryLlmStage, error: unknown): LlmCause;
  /** Chain steps the model gave whose text is not in the message they cite: dropped, never stored. */
  refusedSteps(count: number): void;
  report(): MemoryLlmReport;
}

export const RULES_EXTRACTOR: Extractor = { kind: 'rules' };

export interface MemoryLlmOptions {
  /** Also told of each fallback (the engine counts it in the LLM monitor). */
  onFallback?: (cause: LlmCause, error: unknown) => void;
  logger?: Logger;
}

export function createMemoryLlm(model: LanguageModel, options: MemoryLlmOptions = {}): MemoryLlm {
  const stages: MemoryLlmReport['stages'] = {};
  const causes: MemoryLlmReport['fallback_causes'] = [];
  let fallbacks = 0;
  let refused = 0;
  const stage = (name: MemoryLlmStage) => (stages[name] ??= { llm: 0, fallbacks: 0 });
  return {
    model,
    extractor: { kind: 'llm', model: model.modelId },
    answered(name) {
      stage(name).llm += 1;
    },
    fellBack(name, error) {
      const cause = failureCause(error);
      stage(name).fallbacks += 1;
      fallbacks += 1;
      countCause(causes, cause);
      options.logger?.warn(`memory ${name}: the LLM's answer was not used (${describeCause(cause, englishCause)}); the rules stand in`);
      options.onFallback?.(cause, error);
      return cause;
    },
    refusedSteps(count) {
      refused += count;
    },
    report: () => ({ model: model.modelId, stages: structuredClone(stages), fallbacks, fallback_causes: structuredClone(causes), refused_steps: refused }),
  };
}

/** A memory run over a run of the engine's LLM runtime (null without an LLM): its fallbacks also count in the LLM monitor, by error code. */
export function memoryLlmOf(run: LlmModelRun | null, logger?: Logger): MemoryLlm | null {
  if (!run) return null;
  return createMemoryLlm(run.model, { ...(logger ? { logger } : {}), onFallback: (_cause, error) => run.recordFallback(CairnError.is(error) ? error.code : 'INTERNAL') });
}

/** A cancelled run stops instead of falling back. */
export function isCancelled(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || CairnError.is(error, 'CANCELLED');
}

/** An answer the model gave that cannot be used as it is (the cause a fallback records). */
export function unusableAnswer(what: string): CairnError {
  return new CairnError('LLM_BAD_RESPONSE', what, { retryable: false, details: { unusable: true } });
}

/** The reports of several runs (or parts of one) added together. */
export function mergeLlmReports(reports: ReadonlyArray<MemoryLlmReport | undefined>): MemoryLlmReport | undefined {
  const given = reports.filter((r): r is MemoryLlmReport => r !== undefined);
  if (given.length === 0) return undefined;
  const out: MemoryLlmReport = { model: given[0]!.model, stages: {}, fallbacks: 0, fallback_causes: mergeCauses(given), refused_steps: 0 };
  for (const r of given) {
    out.fallbacks += r.fallbacks;
    out.refused_steps += r.refused_steps;
    for (const [name, s] of Object.entries(r.stages)) {
      const into = (out.stages[name] ??= { llm: 0, fallbacks: 0 });
      into.llm += s.llm;
      into.fallbacks += s.fallbacks;
    }
  }
  return out;
}
