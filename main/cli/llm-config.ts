/**
 * The CLI's LLM flags and environment as the engine takes them (docs/llm-runtime.md): one
 * settings patch of the contract, checked once by its schema, plus the API key and the two
 * options of the engine that are not settings (streaming, the breaker's cool-down). compose.ts
 * adds the provider; `cairn serve` sends the same object to the engine worker.
 *
 * The CLI is the one place that reads the environment; the engine and the adapters get plain
 * settings. The API key goes to the engine and nowhere else: what is printed or stored names
 * the model and the server, never the key.
 *
 * @example
 * const llm = llmFromFlags(flags, process.env, 'one-shot');
 * const engine = await openEngine({ workspace, logger, llm });
 * (await engine.call('llm:stats', {})).calls;
 */
import { LlmSettingsPatch, type LlmSettings } from '../../shared/contracts/api.js';
import { CairnError } from '../../shared/errors.js';
import type { WorkerLlmData } from '../host/llm-worker-data.js';

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

type Env = Record<string, string | undefined>;

/**
 * - `one-shot` (`cairn ingest`, `cairn watch`): the defaults, then the environment, then the
 *   flags; the workspace's saved settings are neither read nor written. The LLM is on when a key
 *   or a base URL is given (flag or environment); with neither, the command runs offline.
 * - `serve`: the flags given override the workspace's saved settings until the next save;
 *   --llm-base-url or --llm-api-key turns the LLM on. The environment supplies only the key: the
 *   workspace's settings say whether the app spends tokens.
 *
 * Every flag is checked even when the LLM stays off, so a typo fails the same way either way;
 * a refusal is one line naming the flag (or the variable) and the reason.
 */
export function llmFromFlags(flags: LlmFlags, env: Env, mode: 'one-shot' | 'serve'): WorkerLlmData {
  const oneShot = mode === 'one-shot';
  const text = (flag: string | undefined, flagName: string, envName?: string): Given | undefined => {
    const fromFlag = nonEmpty(flag);
    if (fromFlag !== undefined) return { value: fromFlag, from: flagName };
    const fromEnv = envName === undefined ? undefined : nonEmpty(env[envName]);
    return fromEnv === undefined ? undefined : { value: fromEnv, from: `$${envName}` };
  };
  // Numbers are read as typed, '' included, so a flag given empty is refused rather than ignored.
  const number = (flag: string | undefined, flagName: string): Given | undefined => (flag === undefined ? undefined : { value: flag, from: flagName });

  const baseUrl = text(flags.llmBaseUrl, '--llm-base-url', oneShot ? 'OPENAI_BASE_URL' : undefined);
  const apiKey = nonEmpty(flags.llmApiKey) ?? nonEmpty(env.OPENAI_API_KEY);
  const turnsOn = oneShot ? baseUrl !== undefined || apiKey !== undefined : nonEmpty(flags.llmBaseUrl) !== undefined || nonEmpty(flags.llmApiKey) !== undefined;

  const patch: Partial<Record<keyof LlmSettings, unknown>> = {};
  const from: Partial<Record<keyof LlmSettings, string>> = {};
  const set = (field: keyof LlmSettings, given: Given | undefined, read: (given: Given) => unknown = (g) => g.value) => {
    if (given === undefined) return;
    patch[field] = read(given);
    from[field] = given.from;
  };
  if (turnsOn) patch.enabled = true;
  set('baseUrl', baseUrl);
  set('model', text(flags.llmModel, '--llm-model', oneShot ? 'CAIRN_LLM_MODEL' : undefined));
  set('maxConcurrent', number(flags.maxConcurrentLlm, '--max-concurrent-llm'), wholeNumber);
  set('tokenBudget', number(flags.tokenBudget, '--token-budget'), wholeNumber);
  set('timeoutMs', number(flags.llmTimeout, '--llm-timeout'), wholeNumber);
  // The limits are the contract's (shared/contracts/llm-limits.ts), the same for every host.
  const checked = LlmSettingsPatch.safeParse(patch);
  if (!checked.success) {
    const problems = checked.error.issues.map((issue) => `${from[issue.path[0] as keyof LlmSettings] ?? String(issue.path[0])} ${issue.message}`);
    throw new CairnError('INVALID_INPUT', problems.join('; '));
  }
  const cooldown = number(flags.llmCooldown, '--llm-cooldown');
  return {
    ...(apiKey !== undefined ? { apiKey } : {}),
    keyStorage: 'memory',
    overrides: checked.data,
    ...(oneShot ? { workspaceSettings: false } : {}),
    ...(flags.llmStream ? { stream: true } : {}),
    ...(cooldown !== undefined ? { cooldownMs: wholeNumber(cooldown) } : {}),
  };
}

/** A value given on the command line or in the environment, and where: the flag or the variable. */
interface Given {
  value: string;
  from: string;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function wholeNumber(given: Given): number {
  if (!/^\d+$/.test(given.value.trim())) throw new CairnError('INVALID_INPUT', `${given.from} must be a whole number, not ${JSON.stringify(given.value)}`);
  return Number(given.value);
}
