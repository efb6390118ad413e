/**
 * The provider every host hands the engine (`EngineDeps.llm.createModel`): the OpenAI-compatible
 * adapter, loaded on its first call. Most engine starts never call an LLM (the app with the LLM
 * off, `cairn ingest` offline), and loading the SDK costs ~110 ms of every start for nothing then.
 */
import { lazyLanguageModel } from '../engine/llm/lazy-model.js';
import type { ModelFactory } from '../engine/settings/llm-stack.js';

export const openAICompatibleModel: ModelFactory = (options) =>
  lazyLanguageModel({ provider: 'openai-compatible', modelId: options.model }, async () => (await import('../adapters/llm/openai.js')).createOpenAIModel(options));
