/**
 * The engine worker: composes the engine with the real adapters and serves the contract over
 * the worker RPC. The web host and the Electron main process start it; the CLI composes the same
 * engine in its own process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { createEngine } from '../engine/engine.js';
import { lazySearchIndex, type IndexConfig } from '../adapters/store/open-index.js';
import { createParsePool } from './parse-pool.js';
import { createTrackWorkers } from './track-workers.js';
import { serveEngine, workerLogger } from './rpc-server.js';
import { bundledFile } from '../host/bundled-file.js';

if (!parentPort) throw new Error('engine.worker must run as a worker thread');
const port = parentPort;

interface EngineWorkerData {
  workspace: string;
  parseWorkers?: number;
  /** Index settings from the host; the local embedder and `<workspace>/.cairn/index` when absent. */
  index?: Omit<IndexConfig, 'logger'>;
}

const data = workerData as EngineWorkerData;
const logger = workerLogger(port);
const engine = await createEngine({
  workspace: data.workspace,
  parser: createParsePool({ workerUrl: bundledFile('parse.worker.js'), size: data.parseWorkers ?? Math.max(1, availableParallelism() - 1), logger }),
  autoSummarize: true,
  trackRunner: createTrackWorkers({ workerUrl: bundledFile('track.worker.js') }),
  index: lazySearchIndex(data.workspace, { ...data.index, logger }),
  logger,
});
serveEngine(port, engine.handlers, { logger, subscribe: engine.subscribe, onShutdown: () => engine.dispose() });
