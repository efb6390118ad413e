/**
 * The seed's (Optimized)DualTrackProcessor (docs/SPEC.md#processor): looks the conversation up in
 * the cache, runs track A and track B (in parallel on a worker runner, or one after the other in
 * this thread), fuses them (fuse.ts), checks the result against the SessionAnalysis schema, caches
 * it, puts the chains in the ChainBuffer and records every stage's time in the MonitoringSystem.
 *
 * Either track can be switched off: its output is then empty (no buckets or clusters, or no
 * chains), and the trigger sees only the other side.
 *
 * @example
 * const processor = new DualTrackProcessor({ runner: createTrackWorkers({ workerUrl }) });
 * const { analysis, cached } = await processor.process(conversation, { mode: 'parallel' });
 */
import { createHash } from 'node:crypto';
import { CairnError } from '../../../../shared/errors.js';
import { SessionAnalysis, type ChainType, type Conversation, type ExtractedChain } from '../../../../shared/types/memory.js';
import { systemClock, type Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { MemoryLlm } from '../llm-run.js';
import { runTrackA, type TrackAResult } from '../buckets/track-a.js';
import { runTrackB } from '../chains/track-b.js';
import { ChainBuffer } from './chain-buffer.js';
import { ChainCacheManager } from './chain-cache.js';
import { fuseTracks } from './fuse.js';
import { MonitoringSystem } from './monitoring.js';
import { inThreadTrackRunner, trackAOf, trackBOf, type TrackRunner } from './track-runner.js';

export interface AnalyzeOptions {
  /** Run track A (buckets, clusters); default true. */
  trackA?: boolean;
  /** Run track B (chains); default true. */
  trackB?: boolean;
  /** Chain types track B extracts; default all five. */
  chainTypes?: ChainType[];
  /** Skip the cache lookup (the new analysis is still cached). */
  refresh?: boolean;
  signal?: AbortSignal;
  /**
   * This run's LLM: the tracks ask it (the rules standing in per batch, window or label) and run
   * in this thread, since a model cannot cross to a worker. Rules only when absent.
   */
  llm?: MemoryLlm;
}

export interface ProcessOptions extends AnalyzeOptions {
  /** parallel: both tracks at once on the runner; sequential: A then B in this thread. */
  mode: 'parallel' | 'sequential';
  /** Marks the analysis as made in degraded mode (the integration adapter sets it). */
  degraded?: boolean;
}

export interface ProcessResult {
  analysis: SessionAnalysis;
  cached: boolean;
  mode: 'parallel' | 'sequential';
}

export interface ProcessorOptions {
  /** Where parallel tracks run (worker threads); in this thread when absent. */
  runner?: TrackRunner;
  cache?: ChainCacheManager<SessionAnalysis>;
  buffer?: ChainBuffer;
  monitor?: MonitoringSystem;
  /** Stamps chains whose messages carry no time. */
  clock?: Clock;
  logger?: Logger;
}

/** Bump when the analysis itself changes shape, so old cache entries (also on disk) stop matching. 2: extractors recorded. */
export const ANALYSIS_VERSION = 2;

/**
 * The cache key: a hash of what the analysis depends on, namely every message (id, role,
 * speaker, text, time), the options and the model. Titles and source paths do not change an analysis.
 */
export function analysisCacheKey(conversation: Conversation, options: AnalyzeOptions = {}): string {
  const model = options.llm?.model;
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ v: ANALYSIS_VERSION, id: conversation.id, a: options.trackA !== false, b: options.trackB !== false, types: options.chainTypes ?? null, model: model ? `${model.provider}:${model.modelId}` : null }));
  for (const session of conversation.sessions) {
    hash.update(JSON.stringify([session.id, session.started_at ?? null]));
    for (const m of session.messages) hash.update(JSON.stringify([m.id, m.role, m.speaker ?? null, m.text, m.timestamp ?? null]));
  }
  return hash.digest('hex');
}

export class DualTrackProcessor {
  readonly cache: ChainCacheManager<SessionAnalysis>;
  readonly buffer: ChainBuffer;
  readonly monitor: MonitoringSystem;
  private readonly runner: TrackRunner;
  private readonly local = inThreadTrackRunner();
  private readonly clock: Clock;

  constructor(options: ProcessorOptions = {}) {
    this.cache = options.cache ?? new ChainCacheManager<SessionAnalysis>();
    this.buffer = options.buffer ?? new ChainBuffer();
    this.monitor = options.monitor ?? new MonitoringSystem({ cache: () => this.cache.stats() });
    this.runner = options.runner ?? this.local;
    this.clock = options.clock ?? systemClock;
  }

  /** True when parallel mode runs on something other than this thread. */
  get parallelCapable(): boolean {
    return this.runner !== this.local;
  }

  get runnerKind(): string {
    return this.runner.kind;
  }

  async process(conversation: Conversation, options: ProcessOptions): Promise<ProcessResult> {
    const started = performance.now();
    const key = analysisCacheKey(conversation, options);
    const hit = options.refresh ? undefined : this.cache.get(key);
    if (hit) return this.finishHit(hit, options.mode, started);

    const a = options.trackA !== false;
    const b = options.trackB !== false;
    const timings: Record<string, number> = {};
    const tracksStarted = performance.now();
    let trackA: TrackAResult | null;
    let chains: ExtractedChain[] | null;
    const llm = options.llm;
    if (llm) {
      // Model calls wait on the network, so both tracks overlap well enough in one thread.
      [trackA, chains] = await Promise.all([
        a ? this.timed('track_a', timings, () => runTrackA(conversation, { llm, signal: options.signal })) : null,
        b ? this.timed('track_b', timings, () => runTrackB(conversation, { llm, signal: options.signal, now: () => this.clock.now(), ...(options.chainTypes ? { types: options.chainTypes } : {}) })) : null,
      ]);
    } else if (options.mode === 'parallel') {
      [trackA, chains] = await Promise.all([
        a ? this.timed('track_a', timings, () => this.runner.runA({ conversation }, options.signal)) : null,
        b ? this.timed('track_b', timings, () => this.runner.runB(this.jobB(conversation, options), options.signal)) : null,
      ]);
    } else {
      trackA = a ? await this.timed('track_a', timings, () => this.local.runA({ conversation }, options.signal)) : null;
      chains = b ? await this.timed('track_b', timings, () => this.local.runB(this.jobB(conversation, options), options.signal)) : null;
    }
    this.record('tracks', timings, performance.now() - tracksStarted);
    if (options.signal?.aborted) throw new CairnError('CANCELLED', `The analysis of ${conversation.id} was cancelled`);
    return this.finish(conversation, key, { trackA, chains }, options, timings, started);
  }

  /** The same analysis synchronously: rules only, both tracks in this thread. */
  processSync(conversation: Conversation, options: AnalyzeOptions = {}): ProcessResult {
    const started = performance.now();
    const key = analysisCacheKey(conversation, options);
    const hit = options.refresh ? undefined : this.cache.get(key);
    if (hit) return this.finishHit(hit, 'sequential', started);
    const timings: Record<string, number> = {};
    const time = <T>(stage: string, work: () => T): T => {
      const t = performance.now();
      const result = work();
      this.record(stage, timings, performance.now() - t);
      return result;
    };
    const trackA = options.trackA !== false ? time('track_a', () => trackAOf({ conversation })) : null;
    const chains = options.trackB !== false ? time('track_b', () => trackBOf(this.jobB(conversation, options))) : null;
    this.record('tracks', timings, (timings.track_a ?? 0) + (timings.track_b ?? 0));
    return this.finish(conversation, key, { trackA, chains }, { ...options, mode: 'sequential' }, timings, started);
  }

  private jobB(conversation: Conversation, options: AnalyzeOptions) {
    return { conversation, now: this.clock.now().toISOString(), ...(options.chainTypes ? { types: options.chainTypes } : {}) };
  }

  private finish(
    conversation: Conversation,
    key: string,
    outputs: { trackA: TrackAResult | null; chains: ExtractedChain[] | null },
    options: ProcessOptions,
    timings: Record<string, number>,
    started: number,
  ): ProcessResult {
    const fused = fuseTracks(conversation, { trackA: outputs.trackA, chains: outputs.chains }, (stage, ms) => this.record(stage, timings, ms));
    const total = performance.now() - started;
    this.record('total', timings, total);
    const parsed = SessionAnalysis.safeParse({
      ...fused,
      tracks: { a: outputs.trackA !== null, b: outputs.chains !== null, degraded: options.degraded === true },
      timings_ms: timings,
      ...(options.llm ? { llm: options.llm.report() } : {}),
    });
    if (!parsed.success) {
      // A schema break is a bug in a track, not bad input: say which field.
      const first = parsed.error.issues[0];
      throw new CairnError('INTERNAL', `The analysis of ${conversation.id} does not match its schema: ${first?.path.join('.')}: ${first?.message}`);
    }
    const analysis = parsed.data;
    this.cache.set(key, analysis, [...new Set(analysis.chains.map((c) => c.chain_type))]);
    this.buffer.put(conversation.id, analysis.chains);
    this.monitor.count('analyses');
    return { analysis, cached: false, mode: options.mode };
  }

  private finishHit(hit: SessionAnalysis, mode: 'parallel' | 'sequential', started: number): ProcessResult {
    this.monitor.count('cache_hits');
    this.monitor.record('cache_lookup_hit', performance.now() - started);
    return { analysis: hit, cached: true, mode };
  }

  private async timed<T>(stage: string, timings: Record<string, number>, work: () => Promise<T>): Promise<T> {
    const t = performance.now();
    const result = await work();
    this.record(stage, timings, performance.now() - t);
    return result;
  }

  private record(stage: string, timings: Record<string, number>, ms: number): void {
    timings[stage] = Math.round(ms * 100) / 100;
    this.monitor.record(stage, ms);
  }
}
