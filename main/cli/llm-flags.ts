/**
 * The LLM flags of the commands that summarize (`ingest`, `watch`, `serve`). Kept apart from
 * llm-config.ts, which loads the contract, so registering them costs nothing at start-up. The
 * limits and defaults shown are the contract's (shared/contracts/llm-limits.ts); no flag has a
 * commander default, so an absent flag leaves the setting alone.
 */
import type { Command } from 'commander';
import { DEFAULT_LLM_MODEL, LLM_LIMITS } from '../../shared/contracts/llm-limits.js';
import { DEFAULT_COOLDOWN_MS } from '../engine/llm/circuit-breaker.js';

export function addLlmOptions(command: Command): Command {
  const { maxConcurrent, tokenBudget, timeoutMs } = LLM_LIMITS;
  return command
    .option('--llm-base-url <url>', 'OpenAI-compatible server for summaries (default: $OPENAI_BASE_URL)')
    .option('--llm-model <model>', `model for summaries (default: $CAIRN_LLM_MODEL, else ${DEFAULT_LLM_MODEL})`)
    .option('--llm-api-key <key>', 'API key (default: $OPENAI_API_KEY); with neither a key nor a base URL, summaries are extractive and offline')
    .option('--max-concurrent-llm <n>', `LLM calls in flight at most, ${maxConcurrent.min} to ${maxConcurrent.max} (default: ${maxConcurrent.default})`)
    .option('--token-budget <n>', `tokens (input + output) each summary run may spend on LLM calls, ${tokenBudget.min} to ${tokenBudget.max}; past it, summaries fall back`)
    .option('--llm-timeout <ms>', `give up on one LLM request after this long, ${timeoutMs.min} to ${timeoutMs.max} (it is retried; default: ${timeoutMs.default})`)
    .option('--llm-cooldown <ms>', `after repeated failures, wait this long before trying the server again (circuit breaker; default: ${DEFAULT_COOLDOWN_MS})`)
    .option('--llm-stream', 'read answers as streams (server-sent events)');
}
