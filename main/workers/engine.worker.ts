/**
 * The engine worker: composes the engine with the real adapters and serves the contract over
 * the worker RPC. The web host and the Electron main process start it; the CLI composes the same
 * engine in its own process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { createEngine } from '../engine/engine.js';
import type { IndexConfig } from '../host/open-index.js';
import { workerSearchIndex } from './index-worker-client.js';
import { createParsePool } from './parse-pool.js';
import { createTrackWorkers } from './track-workers.js';
import { serveEngine, workerLogger } from './rpc-server.js';
import { bundledFile } from '../lib/runtime-files.js';
import { openAICompatibleModel } from '../host/openai-model.js';
import type { WorkerLlmData } from '../host/llm-worker-data.js';
import { declareDeadThreads } from '../engine/queue/lock-file.js';

if (!parentPort) throw new Error('engine.worker must run as a worker thread');
const port = parentPort;

interface EngineWorkerData {
  workspace: string;
  parseWorkers?: number;
  /** Index settings from the host; the local embedder and `<workspace>/.cairn/index` when absent. */
  index?: Omit<IndexConfig, 'logger'>;
  /** The API key and start-up LLM settings from the host (main/host/llm-worker-data.ts). */
  llm?: WorkerLlmData;
  /** Engine workers of this process that crashed: their outbox lock and index journal are stale (main/app/engine-supervisor.ts). */
  deadThreads?: number[];
}

const data = workerData as EngineWorkerData;
const logger = workerLogger(port);
declareDeadThreads(data.deadThreads ?? []);
const engine = await createEngine({
  workspace: data.workspace,
  parser: createParsePool({ workerUrl: bundledFile('parse.worker.js'), size: data.parseWorkers ?? Math.max(1, availableParallelism() - 1), logger }),
  autoSummarize: true,
  trackRunner: createTrackWorkers({ workerUrl: bundledFile('track.worker.js') }),
  // Embedding and index writes run in a worker of their own, so a flush does not stall this thread's LLM calls.
  index: workerSearchIndex(data.workspace, { ...data.index, logger }, { workerUrl: bundledFile('index.worker.js') }),
  logger,
  // Summaries follow the settings: the OpenAI-compatible adapter when the LLM is on, extractive otherwise.
  llm: { ...data.llm, createModel: openAICompatibleModel },
});
serveEngine(port, engine.handlers, { logger, subscribe: engine.subscribe, onShutdown: () => engine.dispose() });
