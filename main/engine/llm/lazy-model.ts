/**
 * A LanguageModel whose provider is loaded on its first call. The app's engine worker starts with
 * the LLM off more often than on, and loading the OpenAI adapter (the SDK and what it imports)
 * costs ~110 ms of every start for nothing then. The factory stays synchronous, so the settings,
 * the stack and its wrappers do not change; only the first call waits for the import.
 *
 * @example
 * const createModel: ModelFactory = (options) =>
 *   lazyLanguageModel({ provider: 'openai-compatible', modelId: options.model }, async () => (await import('./openai.js')).createOpenAIModel(options));
 */
import type { CompleteJsonOptions, CompleteJsonResult, CompleteOptions, CompleteResult, LanguageModel } from '../ports/language-model.js';

export function lazyLanguageModel(names: { provider: string; modelId: string }, load: () => Promise<LanguageModel>): LanguageModel {
  let loading: Promise<LanguageModel> | null = null;
  // A failed load is not kept: the next call tries again (a file locked by an update, say).
  const model = () => (loading ??= load().catch((error: unknown) => ((loading = null), Promise.reject(error))));
  return {
    provider: names.provider,
    modelId: names.modelId,
    async complete(options: CompleteOptions): Promise<CompleteResult> {
      return (await model()).complete(options);
    },
    async completeJson<T>(options: CompleteJsonOptions<T>): Promise<CompleteJsonResult<T>> {
      return (await model()).completeJson(options);
    },
  };
}
