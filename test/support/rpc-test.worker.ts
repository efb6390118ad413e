/**
 * A small engine worker for the RPC tests: serves `fs:stat` (a fixed answer, or an error, a bad
 * response, a crash or a blocked thread, chosen by the URI) and a slow `ingest:start` (path
 * `/slow/{steps}`) that emits events and honours cancellation. `fs:ls` is deliberately not served.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CommandResponse } from '../../shared/contracts/api.js';
import { CairnError } from '../../shared/errors.js';
import { serveEngine, workerLogger } from '../../main/workers/rpc-server.js';

if (!parentPort) throw new Error('Must run as a worker thread');

const label = (workerData as { label?: string } | undefined)?.label;
const logger = workerLogger(parentPort);
let requests = 0;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

serveEngine(
  parentPort,
  {
    'fs:stat': async (request) => {
      requests += 1;
      switch (request.uri) {
        case 'ctx://resources/missing':
          throw new CairnError('NOT_FOUND', `No node at ${request.uri}`, { details: { uri: request.uri } });
        case 'ctx://resources/plain-error':
          throw new TypeError('x is not a function');
        case 'ctx://resources/bad-response':
          return { uri: request.uri, kind: 'folder' } as unknown as CommandResponse<'fs:stat'>;
        case 'ctx://resources/crash':
          setImmediate(() => process.exit(3));
          return new Promise(() => undefined);
        case 'ctx://resources/block': {
          // A thread too busy to hear `shutdown`: dispose() must terminate it.
          const end = Date.now() + 20_000;
          while (Date.now() < end) {
            /* spin */
          }
          break;
        }
      }
      const now = '2024-05-08T13:56:00.000Z';
      return {
        uri: request.uri,
        kind: 'file',
        bytes: 42,
        has_abstract: false,
        has_overview: false,
        meta: { uri: request.uri, kind: 'file', context_type: 'resource', source_path: label, requests, created_at: now, updated_at: now },
      };
    },
    'ingest:start': async (request, { signal, emit }) => {
      requests += 1;
      const steps = Number(/\/slow\/(\d+)/.exec(request.path)?.[1] ?? 3);
      const jobId = request.jobId ?? 'job-1';
      emit({ type: 'ingest/started', jobId, source: request.path, root: 'ctx://resources/slow/', resumed: false });
      for (let done = 1; done <= steps; done += 1) {
        await sleep(5, signal);
        if (signal.aborted) {
          logger.info('ingest cancelled', { jobId, done });
          throw new CairnError('CANCELLED', `Ingest ${jobId} was cancelled`);
        }
        emit({ type: 'ingest/progressed', jobId, phase: 'parse', done, total: steps, bytes: done * 10 });
      }
      return { jobId, root: 'ctx://resources/slow/', files: steps, nodes: steps + 1, changed: steps, removed: 0, skipped: [], warnings: [], bytes: steps * 10, tokens: 0, llm_calls: 0, ms: 1, resumed: false };
    },
  },
  {
    logger,
    onShutdown: () => logger.info('test engine shut down', { requests }),
  },
);
logger.info('rpc test worker started', { label, error: new CairnError('INTERNAL', 'an error in a log field') });
