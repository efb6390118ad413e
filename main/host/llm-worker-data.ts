/**
 * What a host hands the engine worker about the LLM, in `workerData.llm`: the one path by which
 * the API key reaches the engine at start (later ones come with settings:set). Electron decrypts
 * the key it keeps with the OS keychain; `cairn serve` takes --llm-api-key or OPENAI_API_KEY.
 * The worker holds the key in memory only.
 */
import type { LlmSettings } from '../../shared/contracts/api.js';

export interface WorkerLlmData {
  apiKey?: string;
  /** Where the host keeps the key, as settings:get reports it. */
  keyStorage?: 'encrypted' | 'memory';
  /** Settings given at start (`cairn serve --llm-*`), laid over `.cairn/settings.json` until the next save. */
  overrides?: Partial<LlmSettings>;
  /** Flags without a setting in the view: read answers as streams, the breaker's cool-down. */
  stream?: boolean;
  cooldownMs?: number;
}
