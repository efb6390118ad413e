/**
 * What the Stats panel shows of `sessions:stats`, as plain rows (tested without a DOM): stage
 * timings in the order the processor runs them, the hit rate as a percentage with its lookups, and
 * each buffered conversation's chain types by count.
 */
import type { SessionStats } from '../../../shared/contracts/api';

/** The processor's stages in the order they run; any other stage follows, by name. */
const STAGE_ORDER = ['track_a', 'track_b', 'tracks', 'fusion', 'validation', 'summary', 'trigger', 'total', 'cache_lookup_hit'];

export interface StageRow {
  name: string;
  count: number;
  mean: string;
  min: string;
  max: string;
}

/** Stage times are often under a millisecond: two decimals. */
export const stageMs = (ms: number): string => `${ms.toFixed(2)} ms`;

export function stageRows(stages: SessionStats['stages']): StageRow[] {
  const rank = (name: string) => {
    const i = STAGE_ORDER.indexOf(name);
    return i === -1 ? STAGE_ORDER.length : i;
  };
  return Object.entries(stages)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([name, s]) => ({ name, count: s.count, mean: stageMs(s.mean_ms), min: stageMs(s.min_ms), max: stageMs(s.max_ms) }));
}

/** "50.0%" and the lookups it is of; "–" before the first lookup. */
export function hitRate(cache: SessionStats['cache']): { rate: string; hits: number; lookups: number } {
  const lookups = cache.hits + cache.misses;
  return { rate: lookups === 0 ? '–' : `${(cache.hit_rate * 100).toFixed(1)}%`, hits: cache.hits, lookups };
}

/** "3 CAUSAL · 2 LOGIC", most first. */
export function chainTypes(byType: Record<string, number>): string {
  return Object.entries(byType)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([type, n]) => `${n} ${type}`)
    .join(' · ');
}
