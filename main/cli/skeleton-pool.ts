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
/**
 * Batches done or in flight ahead of the next one to print, per worker. Output is in order, so a
 * slow batch (one large file) holds the window: it must be wide enough that the other workers
 * keep busy meanwhile. The answers held are skeletons, a few KB per file.
 */
const AHEAD_PER_WORKER = 8;

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
 * Makes the skeleton of each file and hands it to `onFile`, in order. `files` may be a promise (a
 * folder's scan): the workers then start, runtime and grammars, while the scan runs.
 *
 * @example
 * await streamSkeletons(files, { mode: 'ast', onFile: (f) => write(f.text) });
 */
export async function streamSkeletons(files: readonly SkeletonFile[] | Promise<readonly SkeletonFile[]>, options: SkeletonStreamOptions): Promise<void> {
  const cores = Math.max(0, Math.floor(options.workers ?? availableParallelism()));
  let early: StartedWorker[] = [];
  if (cores > 1 && !Array.isArray(files)) early = startWorkers(cores);
  let list: readonly SkeletonFile[];
  try {
    list = await files;
  } catch (error) {
    for (const started of early) void started.worker.terminate();
    throw error;
  }
  const size = Math.min(cores, Math.ceil(list.length / BATCH));
  // Few files run in this thread; extra early workers are let go.
  for (const started of early.splice(size > 1 ? size : 0)) void started.worker.terminate();
  if (size <= 1) {
    const { skeletonsForPaths } = await import('../engine/parse/skeleton/index.js');
    for (let start = 0; start < list.length; start += BATCH) {
      for (const file of (await skeletonsForPaths(list.slice(start, start + BATCH), { mode: options.mode })).files) await options.onFile(file);
    }
    return;
  }
  await inWorkers(list, early.length > 0 ? early : startWorkers(size), options);
}

/** A worker started before its work is known, and the error it met meanwhile (kept, so it is not an uncaught one). */
interface StartedWorker {
  worker: Worker;
  error?: Error;
  onError: (error: Error) => void;
}

function startWorkers(size: number): StartedWorker[] {
  return Array.from({ length: size }, () => {
    const started: StartedWorker = { worker: new Worker(bundledFile('skeleton.worker.js')), onError: (error) => (started.error ??= error) };
    started.worker.on('error', started.onError);
    return started;
  });
}

function inWorkers(files: readonly SkeletonFile[], started: StartedWorker[], options: SkeletonStreamOptions): Promise<void> {
  const pool = started.map((s) => s.worker);
  const size = pool.length;
  const batches = Math.ceil(files.length / BATCH);
  /** Batches each worker has been sent and not yet answered. */
  const inFlight = new Map<Worker, number>();
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
      if (sent >= batches || sent - nextToPrint >= size * AHEAD_PER_WORKER) return false;
      const batch: SkeletonBatch = { id: sent, files: files.slice(sent * BATCH, (sent + 1) * BATCH), mode: options.mode };
      sent += 1;
      inFlight.set(worker, (inFlight.get(worker) ?? 0) + 1);
      worker.postMessage(batch);
      return true;
    };
    // Each worker is topped up to PER_WORKER batches, the least busy first: topping up the first
    // worker of the pool on every answer gave it nearly all the work.
    const refill = () => {
      for (;;) {
        if (failed) return;
        const idlest = pool.reduce((a, b) => ((inFlight.get(b) ?? 0) < (inFlight.get(a) ?? 0) ? b : a));
        if ((inFlight.get(idlest) ?? 0) >= PER_WORKER || !send(idlest)) return;
      }
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
    const crashed = (error: Error) => stop(new CairnError('WORKER_CRASHED', `A skeleton worker crashed: ${error.message}`, { cause: error }));
    for (const { worker, error, onError } of started) {
      worker.off('error', onError);
      if (error) crashed(error);
      worker.on('message', (result: SkeletonBatchResult) => {
        if ('error' in result) return stop(new CairnError('INTERNAL', `A skeleton worker failed: ${result.error}`));
        inFlight.set(worker, (inFlight.get(worker) ?? 1) - 1);
        done.set(result.id, result.files);
        refill();
        void print();
      });
      worker.on('error', crashed);
      worker.on('exit', (code) => {
        if (code !== 0 && !failed && nextToPrint < batches) stop(new CairnError('WORKER_CRASHED', `A skeleton worker exited with code ${code}`));
      });
    }
    refill();
  });
}
