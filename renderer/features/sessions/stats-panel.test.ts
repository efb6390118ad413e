import { describe, expect, it } from 'vitest';
import type { SessionStats } from '../../../shared/contracts/api';
import { chainTypes, hitRate, stageRows } from './stats-panel';

const stage = (mean: number, count = 1) => ({ count, total_ms: mean * count, mean_ms: mean, min_ms: mean / 2, max_ms: mean * 2, last_ms: mean });
const cache = (hits: number, misses: number): SessionStats['cache'] => ({
  size: 1,
  max_entries: 128,
  ttl_ms: 1_800_000,
  hits,
  misses,
  evictions: 0,
  expirations: 0,
  hit_rate: hits + misses === 0 ? 0 : Math.round((hits / (hits + misses)) * 10_000) / 10_000,
});

describe('the memory processor stats panel', () => {
  it('lists stages in the order the processor runs them, unknown ones after by name, times to two decimals', () => {
    const rows = stageRows({ total: stage(600.123), zeta: stage(1), fusion: stage(20.5), track_b: stage(0.004, 3), track_a: stage(338.69), alpha: stage(2) });
    expect(rows.map((r) => r.name)).toEqual(['track_a', 'track_b', 'fusion', 'total', 'alpha', 'zeta']);
    expect(rows[1]).toEqual({ name: 'track_b', count: 3, mean: '0.00 ms', min: '0.00 ms', max: '0.01 ms' });
    expect(rows[3]!.mean).toBe('600.12 ms');
  });

  it('shows the hit rate as a percentage of its lookups, and a dash before the first lookup', () => {
    expect(hitRate(cache(1, 2))).toEqual({ rate: '33.3%', hits: 1, lookups: 3 });
    expect(hitRate(cache(0, 0))).toEqual({ rate: '–', hits: 0, lookups: 0 });
    expect(hitRate(cache(0, 4)).rate).toBe('0.0%');
  });

  it('names the buffered chain types most first', () => {
    expect(chainTypes({ TIME: 1, CAUSAL: 3, LOGIC: 2, OPERATION: 2 })).toBe('3 CAUSAL · 2 LOGIC · 2 OPERATION · 1 TIME');
    expect(chainTypes({})).toBe('');
  });
});
