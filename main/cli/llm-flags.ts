/**
 * The LLM flags of the commands that summarize (`ingest`, `watch`, `serve`) and of the memory
 * engine's (`sessions analyze`, `sessions commit`, `sessions import --commit`): one set, one runtime. Kept apart from
 * llm-config.ts, which loads the contract, so registering them costs nothing at start-up. The
 * limits and defaults shown are the contract's (shared/contracts/llm-limits.ts); no flag has a
 * commander default, so an absent flag leaves the setting alone.
 */
import type { Command } from 'commander';
import { DEFAULT_LLM_MODEL, LLM_LIMITS } from '../../shared/contracts/llm-limits.js';
import { DEFAULT_COOLDOWN_MS } from '../engine/llm/circuit-breaker.js';

/** What the LLM does for a command, and what it falls back to, in its flags' help. */
const USES = {
  summaries: { what: 'summaries', offline: 'summaries are extractive and offline', run: 'each summary run', past: 'summaries fall back' },
  memory: { what: 'bucket classification, chains, topic labels and dedup', offline: 'the rules do it all, offline', run: 'the command', past: 'the rules stand in' },
} as const;

export function addLlmOptions(command: Command, use: keyof typeof USES = 'summaries'): Command {
  const { maxConcurrent, tokenBudget, timeoutMs } = LLM_LIMITS;
  const u = USES[use];
  return command
    .option('--llm-base-url <url>', `OpenAI-compatible server for ${u.what} (default: $OPENAI_BASE_URL)`)
    .option('--llm-model <model>', `model for ${u.what} (default: $CAIRN_LLM_MODEL, else ${DEFAULT_LLM_MODEL})`)
    .option('--llm-api-key <key>', `API key (default: $OPENAI_API_KEY); with neither a key nor a base URL, ${u.offline}`)
    .option('--max-concurrent-llm <n>', `LLM calls in flight at most, ${maxConcurrent.min} to ${maxConcurrent.max} (default: ${maxConcurrent.default})`)
    .option('--token-budget <n>', `tokens (input + output) ${u.run} may spend on LLM calls, ${tokenBudget.min} to ${tokenBudget.max}; past it, ${u.past}`)
    .option('--llm-timeout <ms>', `give up on one LLM request after this long, ${timeoutMs.min} to ${timeoutMs.max} (it is retried; default: ${timeoutMs.default})`)
    .option('--llm-cooldown <ms>', `after repeated failures, wait this long before trying the server again (circuit breaker; default: ${DEFAULT_COOLDOWN_MS})`)
    .option('--llm-stream', 'read answers as streams (server-sent events)');
}
