/**
 * The CLI's LLM settings (DESIGN.md section 6): flags first, then the environment; with neither
 * a key nor a base URL there is no LLM and the engine keeps its embedded extractive summarizer.
 *
 * The CLI is the one place that reads the environment; the engine and the adapters get plain
 * config. The API key never leaves this module except into the OpenAI adapter: `describeLlm`
 * and everything printed or stored name the model and the server, never the key.
 *
 * @example
 * const config = resolveLlmConfig(flags, process.env);
 * const llm = config ? createCliLlm(config, { logger }) : null;
 * const engine = await openEngine({ ..., summarizer: llm?.summarizer });
 * llm?.stats.snapshot(); // calls, retries, tokens, fallbacks
 */
import { CairnError, errorMessage } from '../../shared/errors.js';
import { createOpenAIModel } from '../adapters/llm/openai.js';
import { createTokenBudget, type TokenBudget } from '../engine/llm/budget.js';
import type { CircuitBreakerOptions } from '../engine/llm/circuit-breaker.js';
import { createReliableModel } from '../engine/llm/compose.js';
import { createLimiter, DEFAULT_MAX_CONCURRENT_LLM } from '../engine/llm/limiter.js';
import type { RetryOptions } from '../engine/llm/retry.js';
import { createLlmStats, type LlmStats } from '../engine/llm/stats.js';
import type { Logger } from '../engine/ports/logger.js';
import { llmSummarizer } from '../engine/summarize/llm-summarizer.js';
import type { NodeSummarizer } from '../engine/summarize/types.js';

/** The flags as commander hands them over (strings). */
export interface LlmFlags {
  llmBaseUrl?: string;
  llmModel?: string;
  llmApiKey?: string;
  maxConcurrentLlm?: string;
  tokenBudget?: string;
  llmTimeout?: string;
  llmCooldown?: string;
  llmStream?: boolean;
}

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

/** Used when neither --llm-model nor CAIRN_LLM_MODEL names one. */
export const DEFAULT_LLM_MODEL = 'gpt-4o-mini';

type Env = Record<string, string | undefined>;

/** The LLM settings, or null when nothing configures one (offline: extractive summaries). */
export function resolveLlmConfig(flags: LlmFlags, env: Env): LlmConfig | null {
  const baseURL = nonEmpty(flags.llmBaseUrl) ?? nonEmpty(env.OPENAI_BASE_URL);
  const apiKey = nonEmpty(flags.llmApiKey) ?? nonEmpty(env.OPENAI_API_KEY);
  // Validated even offline, so a typo fails the same way whether or not an LLM is configured.
  const maxConcurrent = flags.maxConcurrentLlm === undefined ? DEFAULT_MAX_CONCURRENT_LLM : positiveInt(flags.maxConcurrentLlm, '--max-concurrent-llm');
  const tokenBudget = flags.tokenBudget === undefined ? undefined : wholeNumber(flags.tokenBudget, '--token-budget');
  const timeoutMs = flags.llmTimeout === undefined ? undefined : positiveInt(flags.llmTimeout, '--llm-timeout');
  const cooldownMs = flags.llmCooldown === undefined ? undefined : wholeNumber(flags.llmCooldown, '--llm-cooldown');
  if (baseURL === undefined && apiKey === undefined) return null;
  return {
    ...(baseURL !== undefined ? { baseURL } : {}),
    model: nonEmpty(flags.llmModel) ?? nonEmpty(env.CAIRN_LLM_MODEL) ?? DEFAULT_LLM_MODEL,
    apiKey: apiKey ?? '',
    maxConcurrent,
    ...(tokenBudget !== undefined ? { tokenBudget } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(cooldownMs !== undefined ? { cooldownMs } : {}),
    ...(flags.llmStream ? { stream: true } : {}),
  };
}

export interface CliLlm {
  summarizer: NodeSummarizer;
  stats: LlmStats;
  budget: TokenBudget | undefined;
  config: LlmConfig;
}

export interface CliLlmOptions {
  logger: Logger;
  /** Retry policy; tests shorten the backoff. Default: withRetry's defaults. */
  retry?: RetryOptions;
  /** Per-call bound. Default: the adapter's (60 s). */
  timeoutMs?: number;
  /** Read answers as SSE streams. Default false. */
  stream?: boolean;
  /** Circuit breaker settings. Default: the breaker's (opens after 5 consecutive failed attempts). */
  breaker?: CircuitBreakerOptions;
}

/** The NodeSummarizer for a run: llmSummarizer over metering → retry → budget → limiter → breaker → OpenAI. */
export function createCliLlm(config: LlmConfig, options: CliLlmOptions): CliLlm {
  const stats = createLlmStats();
  const budget = config.tokenBudget !== undefined ? createTokenBudget({ maxTokens: config.tokenBudget }) : undefined;
  const base = createOpenAIModel({
    ...(config.baseURL !== undefined ? { baseURL: config.baseURL } : {}),
    apiKey: config.apiKey,
    model: config.model,
    logger: options.logger,
    ...((options.timeoutMs ?? config.timeoutMs) !== undefined ? { timeoutMs: options.timeoutMs ?? config.timeoutMs } : {}),
    ...((options.stream ?? config.stream) !== undefined ? { stream: options.stream ?? config.stream } : {}),
  });
  const { model } = createReliableModel(base, {
    limiter: createLimiter(config.maxConcurrent),
    stats,
    ...(budget ? { budget } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.breaker ? { breaker: options.breaker } : config.cooldownMs !== undefined ? { breaker: { cooldownMs: config.cooldownMs } } : {}),
  });
  return { summarizer: withFallbackMetering(llmSummarizer(model), stats), stats, budget, config };
}

/** One line naming the model and the server, for logs; never the key. */
export function describeLlm(config: LlmConfig): string {
  return `${config.model} at ${config.baseURL ?? 'api.openai.com'}`;
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
    summarizeFile: (input) => inner.summarizeFile(input).catch(record),
    summarizeDirectory: (input) => inner.summarizeDirectory(input).catch(record),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function wholeNumber(text: string, flag: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < 0) throw new CairnError('INVALID_INPUT', `${flag} must be a whole number, not ${JSON.stringify(text)}`);
  return value;
}

function positiveInt(text: string, flag: string): number {
  const value = wholeNumber(text, flag);
  if (value === 0) throw new CairnError('INVALID_INPUT', `${flag} must be at least 1`);
  return value;
}
