/**
 * What a host hands the engine worker about the LLM, in `workerData.llm`: the engine's own LLM
 * deps (`EngineDeps.llm`) but the provider, which the worker adds (docs/llm-runtime.md). It is
 * the one path by which the API key reaches the engine at start (later ones come with
 * settings:set). Electron decrypts the key it keeps with the OS keychain; `cairn serve` takes
 * --llm-api-key or OPENAI_API_KEY. The worker holds the key in memory only.
 */
import type { EngineLlm } from '../engine/engine.js';

export type WorkerLlmData = Omit<EngineLlm, 'createModel' | 'retry' | 'breaker'>;
