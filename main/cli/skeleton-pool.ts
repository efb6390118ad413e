/**
 * The skeletons of many files for `cairn skeleton`, on every core: batches of files go to worker
 * threads (main/workers/skeleton.worker.ts), and each file's skeleton is handed on in the order
 * given as soon as the batches before it are done, so the command prints as it goes and holds
 * only the batches in flight, never every file. Few files (or `workers: 0`) run in this thread:
 * a worker's start (its runtime and grammars) would cost more than they do.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { CairnError } from '../../shared/errors.js';
import type { CodeSummaryMode } from '../../shared/types/ingest.js';
import type { SkeletonFile, SkeletonJson } from '../engine/parse/skeleton/index.js';
import { bundledFile } from '../lib/runtime-files.js';

/** Files per message to a worker: large enough that a round trip is small next to the work. */
const BATCH = 16;
/** Batches sent to one worker at once, so it never waits on a round trip between two. */
const PER_WORKER = 2;

/** What the command sends a worker. */
export interface SkeletonBatch {
  id: number;
  files: SkeletonFile[];
  mode: CodeSummaryMode;
}

/** What a worker answers: the batch's skeletons in order, or why it could not make them. */
export type SkeletonBatchResult = { id: number; files: SkeletonJson[] } | { id: number; error: string };

export interface SkeletonStreamOptions {
  mode: CodeSummaryMode;
  /** Worker threads; 0 runs in this thread. Default: one per core. */
  workers?: number;
  /** Called with each file's skeleton in the order of `files`; the next waits for it to settle (backpressure). */
  onFile(file: SkeletonJson): void | Promise<void>;
}

/**
 * Makes the skeleton of each file and hands it to `onFile`, in order.
 *
 * @example
 * await streamSkeletons(files, { mode: 'ast', onFile: (f) => write(f.text) });
 */
export async function streamSkeletons(files: readonly SkeletonFile[], options: SkeletonStreamOptions): Promise<void> {
  const workers = Math.min(Math.max(0, Math.floor(options.workers ?? availableParallelism())), Math.ceil(files.length / BATCH));
  if (workers <= 1) {
    const { skeletonsForPaths } = await import('../engine/parse/skeleton/index.js');
    for (let start = 0; start < files.length; start += BATCH) {
      for (const file of (await skeletonsForPaths(files.slice(start, start + BATCH), { mode: options.mode })).files) await options.onFile(file);
    }
    return;
  }
  await inWorkers(files, workers, options);
}

function inWorkers(files: readonly SkeletonFile[], size: number, options: SkeletonStreamOptions): Promise<void> {
  const batches = Math.ceil(files.length / BATCH);
  const pool: Worker[] = [];
  /** Answers that arrived before the batches ahead of them, by batch id. */
  const done = new Map<number, SkeletonJson[]>();
  let sent = 0;
  let nextToPrint = 0;
  let printing = false;
  let failed = false;

  return new Promise<void>((resolve, reject) => {
    const stop = (error: unknown) => {
      if (failed) return;
      failed = true;
      for (const worker of pool) void worker.terminate();
      reject(error);
    };
    const send = (worker: Worker) => {
      // Bounded lookahead: answers waiting to be printed count against it too.
      if (sent >= batches || sent - nextToPrint >= size * PER_WORKER) return false;
      const batch: SkeletonBatch = { id: sent, files: files.slice(sent * BATCH, (sent + 1) * BATCH), mode: options.mode };
      sent += 1;
      worker.postMessage(batch);
      return true;
    };
    const refill = () => {
      for (let round = 0; round < PER_WORKER; round += 1) for (const worker of pool) if (!failed) send(worker);
    };
    const print = async () => {
      if (printing) return;
      printing = true;
      try {
        while (!failed && done.has(nextToPrint)) {
          const skeletons = done.get(nextToPrint)!;
          done.delete(nextToPrint);
          for (const file of skeletons) await options.onFile(file);
          nextToPrint += 1;
          refill();
        }
      } catch (error) {
        stop(error);
      } finally {
        printing = false;
      }
      if (!failed && nextToPrint === batches) {
        for (const worker of pool) void worker.terminate();
        resolve();
      }
    };
    for (let i = 0; i < size; i += 1) {
      const worker = new Worker(bundledFile('skeleton.worker.js'));
      worker.on('message', (result: SkeletonBatchResult) => {
        if ('error' in result) return stop(new CairnError('INTERNAL', `A skeleton worker failed: ${result.error}`));
        done.set(result.id, result.files);
        void print();
      });
      worker.on('error', (error) => stop(new CairnError('WORKER_CRASHED', `A skeleton worker crashed: ${error.message}`, { cause: error })));
      worker.on('exit', (code) => {
        if (code !== 0 && !failed && nextToPrint < batches) stop(new CairnError('WORKER_CRASHED', `A skeleton worker exited with code ${code}`));
      });
      pool.push(worker);
    }
    refill();
  });
}
