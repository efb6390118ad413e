/**
 * Where the two tracks run. The processor asks a `TrackRunner` for track A (buckets and
 * clusters) and track B (chains) and does not care whether they run in this thread
 * (`inThreadTrackRunner`) or in worker threads (`createTrackWorkers` in main/workers), which is
 * how the engine keeps worker code out of its own folder (docs/ARCHITECTURE.md#layers).
 *
 * Only the rule paths run behind this port: a language model is an object with sockets and
 * cannot cross to a worker, and model calls are I/O-bound anyway, so the processor runs model
 * tracks in its own thread.
 */
import type { ChainType, Conversation, ExtractedChain } from '../../../../shared/types/memory.js';
import { CairnError } from '../../../../shared/errors.js';
import { runTrackARules, type TrackAResult } from '../buckets/track-a.js';
import { extractChainsWithRules } from '../chains/track-b.js';

export interface TrackAJob {
  conversation: Conversation;
  distanceThreshold?: number;
}

export interface TrackBJob {
  conversation: Conversation;
  types?: ChainType[];
  /** ISO time stamped on chains whose messages carry none (plain data, so it can cross to a worker). */
  now: string;
}

export interface RunnerHealth {
  healthy: boolean;
  detail: string;
}

export interface TrackRunner {
  /** "in-thread" or "worker-threads": shown in the monitoring export. */
  readonly kind: string;
  runA(job: TrackAJob, signal?: AbortSignal): Promise<TrackAResult>;
  runB(job: TrackBJob, signal?: AbortSignal): Promise<ExtractedChain[]>;
  /** A cheap round trip proving the runner can take work (a worker answers a ping). */
  health(): Promise<RunnerHealth>;
  dispose(): Promise<void>;
}

/** Track A's rule path, as a plain function of a job (what a worker runs too). */
export function trackAOf(job: TrackAJob): TrackAResult {
  return runTrackARules(job.conversation, job.distanceThreshold !== undefined ? { distanceThreshold: job.distanceThreshold } : {});
}

/** Track B's rule path, as a plain function of a job. */
export function trackBOf(job: TrackBJob): ExtractedChain[] {
  const now = new Date(job.now);
  return extractChainsWithRules(job.conversation, { ...(job.types ? { types: job.types } : {}), now: () => now });
}

/**
 * Runs both tracks in the calling thread, one after the other: the degraded path and the
 * default when no workers are configured.
 *
 * @example
 * const runner = inThreadTrackRunner();
 * const { clusters } = await runner.runA({ conversation });
 */
export function inThreadTrackRunner(): TrackRunner {
  const check = (signal?: AbortSignal) => {
    if (signal?.aborted) throw new CairnError('CANCELLED', 'The analysis was cancelled');
  };
  return {
    kind: 'in-thread',
    async runA(job, signal) {
      check(signal);
      return trackAOf(job);
    },
    async runB(job, signal) {
      check(signal);
      return trackBOf(job);
    },
    async health() {
      return { healthy: true, detail: 'in-thread' };
    },
    async dispose() {},
  };
}
