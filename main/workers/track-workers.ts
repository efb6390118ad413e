/**
 * The processor's worker runner: track A and track B each in its own worker thread, so the two run
 * in parallel and neither blocks the engine's thread (the seed's ThreadPoolExecutor,
 * docs/SPEC.md#processor, with two workers).
 *
 * - A worker starts on its first job and does not keep the process alive while idle.
 * - A worker that dies (crash, `process.exit`, out of memory) fails the jobs it held with
 *   `WORKER_CRASHED`; the next job starts a fresh one. The integration adapter turns such a
 *   failure into degraded mode.
 * - An aborted signal rejects its job with `CANCELLED` at once; the worker's late answer is dropped.
 *
 * @example
 * const runner = createTrackWorkers({ workerUrl: bundledFile('track.worker.js') });
 * const [a, chains] = await Promise.all([runner.runA({ conversation }), runner.runB({ conversation, now })]);
 * await runner.dispose();
 */
import { Worker } from 'node:worker_threads';
import { CairnError, errorMessage, reviveError } from '../../shared/errors.js';
import type { ExtractedChain } from '../../shared/types/memory.js';
import type { TrackAResult } from '../engine/memory/buckets/track-a.js';
import type { TrackRunner } from '../engine/memory/processor/track-runner.js';
import type { TrackHostMessage, TrackWorkerMessage } from './track-protocol.js';

export interface TrackWorkersOptions {
  /** The worker entry: the bundled track.worker.js, or a test worker speaking track-protocol. */
  workerUrl: URL;
}

type Lane = 'a' | 'b';

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  lane: Lane;
  detach(): void;
}

interface Slot {
  worker: Worker;
  error: Error | null;
}

export function createTrackWorkers(options: TrackWorkersOptions): TrackRunner {
  const slots = new Map<Lane, Slot>();
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let disposed = false;

  const busy = (lane: Lane) => [...pending.values()].some((p) => p.lane === lane);

  const settle = (id: number, error: unknown, value?: unknown) => {
    const job = pending.get(id);
    if (!job) return;
    pending.delete(id);
    job.detach();
    if (error) job.reject(error);
    else job.resolve(value);
    const slot = slots.get(job.lane);
    if (slot && !busy(job.lane)) slot.worker.unref();
  };

  const spawn = (lane: Lane): Slot => {
    const worker = new Worker(options.workerUrl);
    const slot: Slot = { worker, error: null };
    worker.on('message', (message: TrackWorkerMessage) => settle(message.id, message.ok ? null : reviveError(message.error), message.ok ? message.result : undefined));
    worker.on('error', (error: Error) => {
      slot.error = error;
    });
    worker.on('exit', (code: number) => {
      if (slots.get(lane) === slot) slots.delete(lane);
      const reason = slot.error ? slot.error.message : `exit code ${code}`;
      for (const [id, job] of [...pending]) {
        if (job.lane !== lane) continue;
        settle(id, disposed ? new CairnError('CANCELLED', 'The track workers were disposed') : new CairnError('WORKER_CRASHED', `The track ${lane.toUpperCase()} worker stopped (${reason})`, { cause: slot.error ?? undefined }));
      }
    });
    slots.set(lane, slot);
    return slot;
  };

  const send = <T>(lane: Lane, message: TrackHostMessage, signal?: AbortSignal): Promise<T> => {
    if (disposed) return Promise.reject(new CairnError('CANCELLED', 'The track workers were disposed'));
    if (signal?.aborted) return Promise.reject(new CairnError('CANCELLED', 'The analysis was cancelled'));
    return new Promise<T>((resolve, reject) => {
      let slot: Slot;
      try {
        slot = slots.get(lane) ?? spawn(lane);
      } catch (error) {
        reject(new CairnError('WORKER_CRASHED', `Could not start a track worker from ${options.workerUrl.href}: ${errorMessage(error)}`, { cause: error }));
        return;
      }
      const job: Pending = { resolve: resolve as (value: unknown) => void, reject, lane, detach: () => undefined };
      if (signal) {
        const onAbort = () => settle(message.id, new CairnError('CANCELLED', 'The analysis was cancelled'));
        signal.addEventListener('abort', onAbort, { once: true });
        job.detach = () => signal.removeEventListener('abort', onAbort);
      }
      pending.set(message.id, job);
      slot.worker.ref();
      try {
        slot.worker.postMessage(message);
      } catch (error) {
        settle(message.id, new CairnError('INVALID_INPUT', `Could not send the conversation to a track worker: ${errorMessage(error)}`, { cause: error }));
      }
    });
  };

  return {
    kind: 'worker-threads',
    runA: (job, signal) => send<TrackAResult>('a', { type: 'run-a', id: nextId++, job }, signal),
    runB: (job, signal) => send<ExtractedChain[]>('b', { type: 'run-b', id: nextId++, job }, signal),
    async health() {
      try {
        // Both lanes answer a ping; a lane that has not started yet starts now, which is what the next run needs anyway.
        await Promise.all((['a', 'b'] as const).map((lane) => send(lane, { type: 'ping', id: nextId++ })));
        return { healthy: true, detail: 'both track workers answered' };
      } catch (error) {
        return { healthy: false, detail: errorMessage(error) };
      }
    },
    async dispose() {
      disposed = true;
      await Promise.all([...slots.values()].map((slot) => slot.worker.terminate()));
      slots.clear();
    },
  };
}
