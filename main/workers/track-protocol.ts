/**
 * The messages between the dual-track processor's worker runner (track-workers.ts) and its
 * workers (track.worker.ts), and the worker side of them. A worker answers jobs in the order
 * they arrive, one at a time: the tracks are synchronous rule code.
 */
import { CairnError, serializeError, type SerializedError } from '../../shared/errors.js';
import type { ExtractedChain } from '../../shared/types/memory.js';
import type { TrackAResult } from '../engine/memory/buckets/track-a.js';
import { trackAOf, trackBOf, type TrackAJob, type TrackBJob } from '../engine/memory/processor/track-runner.js';

export type TrackHostMessage = { type: 'run-a'; id: number; job: TrackAJob } | { type: 'run-b'; id: number; job: TrackBJob } | { type: 'ping'; id: number };

export type TrackWorkerMessage =
  | { type: 'result'; id: number; ok: true; result: TrackAResult | ExtractedChain[] | { pong: true; pid: number } }
  | { type: 'result'; id: number; ok: false; error: SerializedError };

/** The part of `parentPort` the protocol uses. */
export interface TrackPort {
  postMessage(message: TrackWorkerMessage): void;
  on(event: 'message', listener: (message: TrackHostMessage) => void): unknown;
}

/**
 * Serves track jobs on `port`.
 *
 * @example
 * if (!parentPort) throw new Error('Must run as a worker thread');
 * serveTracks(parentPort);
 */
export function serveTracks(port: TrackPort): void {
  port.on('message', (message) => {
    try {
      const result = message.type === 'run-a' ? trackAOf(message.job) : message.type === 'run-b' ? trackBOf(message.job) : { pong: true as const, pid: process.pid };
      port.postMessage({ type: 'result', id: message.id, ok: true, result });
    } catch (error) {
      port.postMessage({ type: 'result', id: message.id, ok: false, error: serializeError(CairnError.is(error) ? error : new CairnError('INTERNAL', `A track failed in its worker: ${String((error as Error)?.message ?? error)}`, { cause: error })) });
    }
  });
}
