/**
 * The LLM flags shared by the commands that summarize (`ingest`, `watch`). Kept apart from
 * llm-config.ts, which loads the OpenAI SDK, so registering them costs nothing at start-up.
 */
import type { Command } from 'commander';

export function addLlmOptions(command: Command): Command {
  return command
    .option('--llm-base-url <url>', 'OpenAI-compatible server for summaries (default: $OPENAI_BASE_URL)')
    .option('--llm-model <model>', 'model for summaries (default: $CAIRN_LLM_MODEL, else gpt-4o-mini)')
    .option('--llm-api-key <key>', 'API key (default: $OPENAI_API_KEY); with neither a key nor a base URL, summaries are extractive and offline')
    .option('--max-concurrent-llm <n>', 'LLM calls in flight at most', '10')
    .option('--token-budget <n>', 'tokens (input + output) this run may spend on LLM calls; past it, summaries fall back')
    .option('--llm-timeout <ms>', 'give up on one LLM request after this long (it is retried; default 60000)')
    .option('--llm-cooldown <ms>', 'after repeated failures, wait this long before trying the server again (circuit breaker; default 30000)')
    .option('--llm-stream', 'read answers as streams (server-sent events)');
}
