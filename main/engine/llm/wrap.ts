/**
 * The one way wrappers are built: a function around each call that implements the same
 * LanguageModel port, so retry, circuit breaking, limits, budgets and metering compose in any
 * order (compose.ts stacks them).
 *
 * @example
 * const logged = wrapLanguageModel(model, async (call, next) => {
 *   const started = Date.now();
 *   try { return await next(); } finally { logger.debug('llm call', { kind: call.kind, ms: Date.now() - started }); }
 * });
 */
import type { CompleteJsonOptions, CompleteJsonResult, CompleteOptions, CompleteResult, LanguageModel, Usage } from '../ports/language-model.js';

export interface CallInfo {
  kind: 'complete' | 'completeJson';
  /** The call's options (messages, signal, maxOutputTokens...). */
  options: CompleteOptions;
}

/**
 * Runs around one call; `next` performs it (and may be called again, as retry does), with the
 * call's options or with some of them replaced (retry restates the schema in the messages).
 */
export type Around = <R extends { usage: Usage }>(call: CallInfo, next: (override?: Pick<CompleteOptions, 'messages'>) => Promise<R>) => Promise<R>;

export function wrapLanguageModel(model: LanguageModel, around: Around): LanguageModel {
  return {
    provider: model.provider,
    modelId: model.modelId,
    complete(options: CompleteOptions): Promise<CompleteResult> {
      return around({ kind: 'complete', options }, (override) => model.complete(override ? { ...options, ...override } : options));
    },
    completeJson<T>(options: CompleteJsonOptions<T>): Promise<CompleteJsonResult<T>> {
      return around({ kind: 'completeJson', options }, (override) => model.completeJson(override ? { ...options, ...override } : options));
    },
  };
}
