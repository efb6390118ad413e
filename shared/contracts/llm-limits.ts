/**
 * The LLM settings' limits and defaults, defined once: the contract's schema (api.ts
 * `LlmSettings`) is built from them, and the CLI's flags and help, the web host and the Settings
 * form read them. Plain constants, so `cairn --help` shows them without loading the contract.
 */
export const LLM_LIMITS = {
  /** LLM calls in flight at most. */
  maxConcurrent: { min: 1, max: 64, default: 10 },
  /** Tokens (input + output) one summary run may spend; no limit by default. */
  tokenBudget: { min: 1, max: 1_000_000_000 },
  /** Bound on one request, in ms. */
  timeoutMs: { min: 1000, max: 600_000, default: 60_000 },
} as const;

/** The model when nothing names one. */
export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';
