/**
 * Composes the engine for one CLI command: the workspace, a parse pool over the cores, the
 * durable outbox, and the LLM's provider when the command hands LLM settings (llm-config.ts).
 * The CLI runs the engine in its own process; the web host and the desktop app run the same
 * engine in a worker thread.
 */
import { availableParallelism } from 'node:os';
import { createEngine, type Engine, type EngineLlm } from '../engine/engine.js';
import type { Logger } from '../engine/ports/logger.js';
import { inProcessParseRunner, type ParseRunner } from '../engine/parse/runner.js';
import { createParsePool } from '../workers/parse-pool.js';
import { createTrackWorkers } from '../workers/track-workers.js';
import { resolveWorkspace } from '../host/app-paths.js';
import { bundledFile } from '../lib/runtime-files.js';
import { openAICompatibleModel } from '../host/openai-model.js';
import { lazySearchIndex, type IndexConfig } from '../host/open-index.js';
import { workerSearchIndex } from '../workers/index-worker-client.js';
import { indexConfig } from './index-config.js';

export interface ComposeOptions {
  workspace?: string;
  /** Parse workers; 0 parses in this thread. Default: one per core. */
  workers?: number;
  logger: Logger;
  /** The LLM settings and key (llm-config.ts); without them every summary is extractive. */
  llm?: Omit<EngineLlm, 'createModel'>;
  /** Index settings (see index-config.ts); from the environment when absent. The index opens on first use. */
  index?: IndexConfig;
  /** How a change waits for another process holding the workspace (lock-flags.ts); default: as long as it takes. */
  lockWaitMs?: number | null;
}

export async function openEngine(options: ComposeOptions): Promise<Engine> {
  const workspace = resolveWorkspace(options.workspace);
  const workers = options.workers ?? availableParallelism();
  const parser: ParseRunner =
    workers > 0 ? createParsePool({ workerUrl: bundledFile('parse.worker.js'), size: workers, logger: options.logger }) : inProcessParseRunner();
  const config = options.index ?? indexConfig({}, options.logger);
  // With worker threads, the index embeds and writes in its own: a flush then costs the engine's
  // thread nothing, and the LLM calls of a summary run in flight are not held up by it.
  const index = workers > 0 ? workerSearchIndex(workspace, config, { workerUrl: bundledFile('index.worker.js') }) : lazySearchIndex(workspace, config);
  // The dual-track processor runs its two tracks in worker threads too (started only when a session is analyzed).
  const trackRunner = workers > 0 ? createTrackWorkers({ workerUrl: bundledFile('track.worker.js') }) : undefined;
  return createEngine({
    workspace,
    parser,
    logger: options.logger,
    index,
    ...(trackRunner ? { trackRunner } : {}),
    ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}),
    ...(options.llm ? { llm: { ...options.llm, createModel: openAICompatibleModel } } : {}),
  });
}
