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
import { LlmSettingsPatch, type LlmSettings } from '../../shared/contracts/api.js';
import { CairnError } from '../../shared/errors.js';
import type { WorkerLlmData } from '../host/llm-worker-data.js';
import { createOpenAIModel } from '../adapters/llm/openai.js';
import { DEFAULT_MAX_CONCURRENT_LLM } from '../engine/llm/limiter.js';
import { createLlmStack, describeLlm, type LlmConfig, type LlmStack, type LlmStackOptions } from '../engine/settings/llm-stack.js';

export { describeLlm, type LlmConfig };

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

export type CliLlm = LlmStack;

export type CliLlmOptions = Omit<LlmStackOptions, 'createModel'>;

/** The NodeSummarizer for a run over the OpenAI adapter (main/engine/settings/llm-stack.ts builds the stack). */
export function createCliLlm(config: LlmConfig, options: CliLlmOptions): CliLlm {
  return createLlmStack(config, { ...options, createModel: createOpenAIModel });
}

/**
 * `cairn serve`'s LLM flags as the engine worker takes them. The key comes from --llm-api-key,
 * else OPENAI_API_KEY; the settings given as flags (`given(name)`: typed on the command line,
 * not a default) override the workspace's for this process, and --llm-base-url or
 * --llm-api-key turns the LLM on. A key from the environment alone turns nothing on: the
 * workspace's settings say whether the app spends tokens.
 */
export function serveLlmData(flags: LlmFlags, env: Env, given: (flag: keyof LlmFlags) => boolean): WorkerLlmData {
  // The same checks and messages as `cairn ingest`.
  resolveLlmConfig(flags, env);
  const apiKey = nonEmpty(flags.llmApiKey) ?? nonEmpty(env.OPENAI_API_KEY);
  const overrides: Partial<LlmSettings> = {
    ...(nonEmpty(flags.llmBaseUrl) !== undefined || nonEmpty(flags.llmApiKey) !== undefined ? { enabled: true } : {}),
    ...(nonEmpty(flags.llmBaseUrl) !== undefined ? { baseUrl: nonEmpty(flags.llmBaseUrl) } : {}),
    ...(nonEmpty(flags.llmModel) !== undefined ? { model: nonEmpty(flags.llmModel) } : {}),
    ...(given('maxConcurrentLlm') ? { maxConcurrent: positiveInt(flags.maxConcurrentLlm ?? '', '--max-concurrent-llm') } : {}),
    ...(flags.tokenBudget !== undefined ? { tokenBudget: wholeNumber(flags.tokenBudget, '--token-budget') } : {}),
    ...(flags.llmTimeout !== undefined ? { timeoutMs: positiveInt(flags.llmTimeout, '--llm-timeout') } : {}),
  };
  const checked = LlmSettingsPatch.safeParse(overrides);
  if (!checked.success) {
    const names: Record<string, string> = { baseUrl: '--llm-base-url', model: '--llm-model', maxConcurrent: '--max-concurrent-llm', tokenBudget: '--token-budget', timeoutMs: '--llm-timeout' };
    const problems = checked.error.issues.map((issue) => `${names[String(issue.path[0])] ?? String(issue.path[0])} ${issue.message}`);
    throw new CairnError('INVALID_INPUT', problems.join('; '));
  }
  return {
    ...(apiKey !== undefined ? { apiKey } : {}),
    keyStorage: 'memory',
    ...(Object.keys(checked.data).length > 0 ? { overrides: checked.data } : {}),
    ...(flags.llmStream ? { stream: true } : {}),
    ...(flags.llmCooldown !== undefined ? { cooldownMs: wholeNumber(flags.llmCooldown, '--llm-cooldown') } : {}),
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
