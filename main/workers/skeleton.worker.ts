/**
 * A worker of `cairn skeleton` (main/cli/skeleton-pool.ts): extracts the skeletons of each batch
 * of files it is sent, in order, and answers with them. Grammars load once per worker, on first use.
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../shared/errors.js';
import { skeletonsForPaths } from '../engine/parse/skeleton/paths.js';
import type { SkeletonBatch, SkeletonBatchResult } from '../cli/skeleton-pool.js';

if (!parentPort) throw new Error('Must run as a worker thread');
const port = parentPort;
port.on('message', (batch: SkeletonBatch) => {
  skeletonsForPaths(batch.files, { mode: batch.mode }).then(
    ({ files }) => port.postMessage({ id: batch.id, files } satisfies SkeletonBatchResult),
    (error: unknown) => port.postMessage({ id: batch.id, error: errorMessage(error) } satisfies SkeletonBatchResult),
  );
});
