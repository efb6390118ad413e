/**
 * The seed's DualTrackIntegrationAdapter (docs/SPEC.md#processor): the one door the engine uses
 * into the processor.
 *
 * - Normal mode: both tracks in parallel on the worker runner.
 * - Degraded mode: both tracks one after the other in this thread. The adapter enters it when a
 *   health check fails or a parallel run fails for any reason but a cancellation (the run is then
 *   redone in degraded mode, so the caller still gets its analysis), and leaves it when a later
 *   health check passes; a degraded adapter re-checks before a run at most every `recheckMs`.
 * - Health: `healthCheck()` pings the runner (with a timeout) and records the verdict for the
 *   workers, the cache and the processor in the MonitoringSystem; `status()` reports it all.
 * - Interfaces: `analyze()` (async, may use workers and a model) and `analyzeSync()` (rules,
 *   this thread, for callers that cannot await).
 *
 * @example
 * const adapter = new DualTrackIntegrationAdapter({ runner: createTrackWorkers({ workerUrl }) });
 * const { analysis } = await adapter.analyze(conversation);
 * adapter.status().health.workers.status; // 'healthy' | 'degraded' | 'failed'
 */
import { CairnError, errorMessage } from '../../../../shared/errors.js';
import type { Conversation } from '../../../../shared/types/memory.js';
import { silentLogger, type Logger } from '../../ports/logger.js';
import { DualTrackProcessor, type AnalyzeOptions, type ProcessorOptions, type ProcessResult } from './dual-track-processor.js';
import type { MonitoringReport } from './monitoring.js';

export interface AdapterOptions extends ProcessorOptions {
  /** Milliseconds a degraded adapter waits before it checks health again; default 30 s. */
  recheckMs?: number;
  /** Milliseconds a health ping may take; default 5 s. */
  healthTimeoutMs?: number;
  /** Milliseconds since some origin (for recheckMs); injected by tests. */
  now?: () => number;
}

export interface HealthReport {
  healthy: boolean;
  degraded: boolean;
  components: MonitoringReport['health'];
}

export interface AdapterStatus extends MonitoringReport {
  mode: 'parallel' | 'sequential';
  degraded: boolean;
  runner: string;
}

export class DualTrackIntegrationAdapter {
  readonly processor: DualTrackProcessor;
  private degradedMode = false;
  private lastCheck = -Infinity;
  private readonly logger: Logger;
  private readonly recheckMs: number;
  private readonly healthTimeoutMs: number;
  private readonly now: () => number;

  constructor(private readonly options: AdapterOptions = {}) {
    this.processor = new DualTrackProcessor(options);
    this.logger = options.logger ?? silentLogger;
    this.recheckMs = options.recheckMs ?? 30_000;
    this.healthTimeoutMs = options.healthTimeoutMs ?? 5_000;
    this.now = options.now ?? Date.now;
    const monitor = this.processor.monitor;
    monitor.setHealth('processor', 'healthy', 'ready');
    monitor.setHealth('cache', 'healthy', 'empty');
    monitor.setHealth('workers', 'healthy', this.processor.parallelCapable ? 'not yet used' : `none configured: tracks run ${this.processor.runnerKind}`);
  }

  get degraded(): boolean {
    return this.degradedMode;
  }

  get mode(): 'parallel' | 'sequential' {
    return this.processor.parallelCapable && !this.degradedMode ? 'parallel' : 'sequential';
  }

  async healthCheck(): Promise<HealthReport> {
    this.lastCheck = this.now();
    const monitor = this.processor.monitor;
    const stats = this.processor.cache.stats();
    monitor.setHealth('cache', 'healthy', `${stats.size}/${stats.max_entries} entries, hit rate ${stats.hit_rate}`);
    if (this.processor.parallelCapable) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<{ healthy: false; detail: string }>((resolve) => {
        timer = setTimeout(() => resolve({ healthy: false, detail: `no answer within ${this.healthTimeoutMs} ms` }), this.healthTimeoutMs);
      });
      const verdict = await Promise.race([
        this.options.runner!.health().catch((error: unknown) => ({ healthy: false, detail: errorMessage(error) })),
        timeout,
      ]).finally(() => clearTimeout(timer));
      if (verdict.healthy) {
        if (this.degradedMode) this.logger.info('dual track: workers healthy again, leaving degraded mode');
        this.degradedMode = false;
        monitor.setHealth('workers', 'healthy', verdict.detail);
      } else {
        this.enterDegraded(`health check failed: ${verdict.detail}`);
      }
    }
    const report = monitor.report();
    return { healthy: report.overall === 'healthy', degraded: this.degradedMode, components: report.health };
  }

  async analyze(conversation: Conversation, options: AnalyzeOptions = {}): Promise<ProcessResult> {
    if (this.degradedMode && this.now() - this.lastCheck >= this.recheckMs) await this.healthCheck();
    if (this.mode === 'sequential') return this.processor.process(conversation, { ...options, mode: 'sequential', degraded: this.degradedMode });
    try {
      const result = await this.processor.process(conversation, { ...options, mode: 'parallel' });
      this.processor.monitor.setHealth('workers', 'healthy', 'last parallel run succeeded');
      return result;
    } catch (error) {
      if (options.signal?.aborted || CairnError.is(error, 'CANCELLED')) throw error;
      this.enterDegraded(`parallel run failed: ${errorMessage(error)}`);
      this.processor.monitor.count('fallbacks');
      return this.processor.process(conversation, { ...options, mode: 'sequential', degraded: true });
    }
  }

  analyzeSync(conversation: Conversation, options: Omit<AnalyzeOptions, 'signal'> = {}): ProcessResult {
    return this.processor.processSync(conversation, options);
  }

  status(): AdapterStatus {
    return { ...this.processor.monitor.report(), mode: this.mode, degraded: this.degradedMode, runner: this.processor.runnerKind };
  }

  exportJson(): string {
    return JSON.stringify(this.status(), null, 2);
  }

  async dispose(): Promise<void> {
    await this.options.runner?.dispose();
  }

  private enterDegraded(reason: string): void {
    if (!this.degradedMode) this.logger.warn(`dual track: degraded mode (sequential, in this thread): ${reason}`);
    this.degradedMode = true;
    this.lastCheck = this.now();
    this.processor.monitor.setHealth('workers', 'failed', reason);
  }
}
