/**
 * The seed's MonitoringSystem (docs/SPEC.md#processor): per-stage timings (count, mean, min, max,
 * last), the cache's hit rate, the health of each component, exported as one JSON document (for
 * `--json`, logs and a future monitor view). With an LLM, each run's report adds what it answered
 * and what fell back to the rules (`llm_{stage}`, `llm_fallbacks_{stage}` counters) and the
 * fallbacks' causes.
 *
 * @example
 * const monitor = new MonitoringSystem({ cache: () => cache.stats() });
 * monitor.record('track_a', 12.5);
 * monitor.setHealth('workers', 'degraded', 'a worker crashed');
 * JSON.parse(monitor.exportJson()).stages.track_a.mean_ms;
 */
import { countCause, type FallbackCauses } from '../../../../shared/fallback-causes.js';
import type { MemoryLlmReport } from '../../../../shared/types/memory.js';
import type { CacheStats } from './chain-cache.js';

export type HealthStatus = 'healthy' | 'degraded' | 'failed';

export interface ComponentHealth {
  status: HealthStatus;
  detail: string;
  /** ISO time of the last change. */
  since: string;
}

export interface StageStats {
  count: number;
  total_ms: number;
  mean_ms: number;
  min_ms: number;
  max_ms: number;
  last_ms: number;
}

export interface MonitoringReport {
  generated_at: string;
  stages: Record<string, StageStats>;
  cache: CacheStats | null;
  health: Record<string, ComponentHealth>;
  /** The worst component status. */
  overall: HealthStatus;
  counters: Record<string, number>;
  /** The LLM's fallbacks to the rules, by cause (shared/llm-cause.ts). */
  llm_fallback_causes: FallbackCauses;
}

const RANK: Record<HealthStatus, number> = { healthy: 0, degraded: 1, failed: 2 };

export class MonitoringSystem {
  private readonly stages = new Map<string, StageStats>();
  private readonly health = new Map<string, ComponentHealth>();
  private readonly counters = new Map<string, number>();
  private readonly causes: FallbackCauses = [];
  private readonly cache: (() => CacheStats) | null;
  private readonly now: () => Date;

  constructor(options: { cache?: () => CacheStats; now?: () => Date } = {}) {
    this.cache = options.cache ?? null;
    this.now = options.now ?? (() => new Date());
  }

  record(stage: string, ms: number): void {
    const value = Math.round(ms * 1000) / 1000;
    const s = this.stages.get(stage);
    if (!s) {
      this.stages.set(stage, { count: 1, total_ms: value, mean_ms: value, min_ms: value, max_ms: value, last_ms: value });
      return;
    }
    s.count += 1;
    s.total_ms = Math.round((s.total_ms + value) * 1000) / 1000;
    s.mean_ms = Math.round((s.total_ms / s.count) * 1000) / 1000;
    s.min_ms = Math.min(s.min_ms, value);
    s.max_ms = Math.max(s.max_ms, value);
    s.last_ms = value;
  }

  /** Times `work` under `stage` (whether it succeeds or throws). */
  async time<T>(stage: string, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.record(stage, performance.now() - started);
    }
  }

  count(name: string, by = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + by);
  }

  /** Adds one run's LLM report: units answered and fallen back per stage, refused steps, causes. */
  countLlm(report: MemoryLlmReport): void {
    for (const [stage, s] of Object.entries(report.stages)) {
      if (s.llm > 0) this.count(`llm_${stage}`, s.llm);
      if (s.fallbacks > 0) this.count(`llm_fallbacks_${stage}`, s.fallbacks);
    }
    if (report.refused_steps > 0) this.count('llm_refused_steps', report.refused_steps);
    for (const { cause, count } of report.fallback_causes) countCause(this.causes, cause, count);
  }

  setHealth(component: string, status: HealthStatus, detail: string): void {
    const current = this.health.get(component);
    if (current && current.status === status && current.detail === detail) return;
    this.health.set(component, { status, detail, since: this.now().toISOString() });
  }

  /** Seeds stages and counters saved by an earlier process (before anything is recorded here). */
  restore(saved: Pick<MonitoringReport, 'stages' | 'counters'> & Partial<Pick<MonitoringReport, 'llm_fallback_causes'>>): void {
    for (const [name, stats] of Object.entries(saved.stages)) this.stages.set(name, { ...stats });
    for (const [name, value] of Object.entries(saved.counters)) this.counters.set(name, value);
    for (const { cause, count } of saved.llm_fallback_causes ?? []) countCause(this.causes, cause, count);
  }

  healthOf(component: string): ComponentHealth | undefined {
    return this.health.get(component);
  }

  stage(name: string): StageStats | undefined {
    const s = this.stages.get(name);
    return s ? { ...s } : undefined;
  }

  report(): MonitoringReport {
    const health = Object.fromEntries([...this.health].map(([k, v]) => [k, { ...v }]));
    const overall = [...this.health.values()].reduce<HealthStatus>((worst, h) => (RANK[h.status] > RANK[worst] ? h.status : worst), 'healthy');
    return {
      generated_at: this.now().toISOString(),
      stages: Object.fromEntries([...this.stages].map(([k, v]) => [k, { ...v }])),
      cache: this.cache ? this.cache() : null,
      health,
      overall,
      counters: Object.fromEntries(this.counters),
      llm_fallback_causes: structuredClone(this.causes),
    };
  }

  exportJson(): string {
    return JSON.stringify(this.report(), null, 2);
  }
}
