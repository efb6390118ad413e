/**
 * The index settings of a CLI command, from its flags, else the environment (docs/ARCHITECTURE.md#the-cli):
 * `--index-uri` / CAIRN_INDEX_URI, and an OpenAI-compatible embedder when a model is named
 * (`--embed-model` / CAIRN_EMBED_MODEL, with `--embed-base-url` / OPENAI_BASE_URL and
 * `--embed-api-key` / OPENAI_API_KEY). Only the CLI reads env; the adapters get plain values.
 */
import type { Command } from 'commander';
import type { IndexConfig } from '../host/open-index.js';
import type { Logger } from '../engine/ports/logger.js';

export interface IndexFlags {
  indexUri?: string;
  embedBaseUrl?: string;
  embedModel?: string;
  embedApiKey?: string;
}

export function addIndexOptions(command: Command): Command {
  return command
    .option('--index-uri <uri>', 'where the search index lives (default: $CAIRN_INDEX_URI, else <workspace>/.cairn/index; s3:// etc. work)')
    .option('--embed-model <name>', 'embed with this model on an OpenAI-compatible endpoint (default: $CAIRN_EMBED_MODEL; none: the local embedder)')
    .option('--embed-base-url <url>', 'the endpoint (default: $OPENAI_BASE_URL, else https://api.openai.com/v1)')
    .option('--embed-api-key <key>', 'its API key (default: $OPENAI_API_KEY)');
}

export function indexConfig(flags: IndexFlags, logger: Logger, env: NodeJS.ProcessEnv = process.env): IndexConfig {
  const uri = flags.indexUri ?? env.CAIRN_INDEX_URI;
  const model = flags.embedModel ?? env.CAIRN_EMBED_MODEL;
  return {
    ...(uri ? { uri } : {}),
    ...(model
      ? {
          embed: {
            model,
            baseURL: flags.embedBaseUrl ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
            // Local servers (Ollama, vLLM) accept any key; the client library insists on one.
            apiKey: flags.embedApiKey ?? env.OPENAI_API_KEY ?? 'none',
          },
        }
      : {}),
    // A CLI process exits right after its command; the engine optimizes at the end of bulk writes
    // instead, and closing removes the versions those replaced.
    idleOptimizeMs: 0,
    cleanupOnClose: true,
    logger,
  };
}
