/**
 * The engine worker: composes the engine with the real adapters and serves the contract over
 * the worker RPC. The web host and the Electron main process start it; the CLI composes the same
 * engine in its own process.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { createEngine } from '../engine/engine.js';
import { createParsePool } from './parse-pool.js';
import { serveEngine, workerLogger } from './rpc-server.js';

if (!parentPort) throw new Error('engine.worker must run as a worker thread');
const port = parentPort;

interface EngineWorkerData {
  workspace: string;
  parseWorkers?: number;
}

const data = workerData as EngineWorkerData;
const logger = workerLogger(port);
const engine = await createEngine({
  workspace: data.workspace,
  parser: createParsePool({ workerUrl: new URL('./parse.worker.js', import.meta.url), size: data.parseWorkers ?? Math.max(1, availableParallelism() - 1), logger }),
  autoSummarize: true,
  logger,
});
serveEngine(port, engine.handlers, { logger, subscribe: engine.subscribe, onShutdown: () => engine.dispose() });
