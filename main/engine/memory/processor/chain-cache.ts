/**
 * The seed's ChainCacheManager (docs/SPEC.md#processor): an LRU cache with a time to live, indexed
 * by chain type, with hit, miss and eviction counts. The processor keeps whole analyses in it,
 * keyed by a hash of the conversation's messages and the options (see `analysisCacheKey`), so
 * replaying a session returns its analysis without running the tracks again.
 *
 * LRU order is the Map's insertion order: a hit deletes and re-inserts its key, so the first key
 * is always the least recently used. Expired entries count as misses and are dropped when met
 * (and by `sweep()`); they are counted as `expirations`, not `evictions`, which are for
 * capacity only.
 *
 * @example
 * const cache = new ChainCacheManager<SessionAnalysis>({ maxEntries: 64, ttlMs: 600_000 });
 * cache.set(key, analysis, ['CAUSAL', 'TIME']);
 * cache.get(key); cache.keysOfType('CAUSAL'); cache.stats().hit_rate;
 */
import type { ChainType } from '../../../../shared/types/memory.js';

export interface CacheOptions {
  /** Entries kept; the least recently used goes first. Default 128. */
  maxEntries?: number;
  /** Milliseconds an entry lives after it is written; 0 or absent: forever. Default 30 minutes. */
  ttlMs?: number;
  /** Milliseconds since some origin; injected by tests. Default `Date.now`. */
  now?: () => number;
}

export interface CacheStats {
  size: number;
  max_entries: number;
  ttl_ms: number;
  hits: number;
  misses: number;
  evictions: number;
  expirations: number;
  /** hits / (hits + misses), 0 before the first lookup. */
  hit_rate: number;
  /** Entries per chain type they hold. */
  by_type: Partial<Record<ChainType, number>>;
}

interface Entry<T> {
  value: T;
  expiresAt: number;
  types: readonly ChainType[];
}

export const DEFAULT_CACHE_ENTRIES = 128;
export const DEFAULT_CACHE_TTL_MS = 30 * 60_000;

export class ChainCacheManager<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly byType = new Map<ChainType, Set<string>>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private hits = 0;
  private misses = 0;
  private evictions = 0;
  private expirations = 0;

  constructor(options: CacheOptions = {}) {
    this.maxEntries = Math.max(1, Math.floor(options.maxEntries ?? DEFAULT_CACHE_ENTRIES));
    this.ttlMs = Math.max(0, options.ttlMs ?? DEFAULT_CACHE_TTL_MS);
    this.now = options.now ?? Date.now;
  }

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) {
      this.misses += 1;
      return undefined;
    }
    if (entry.expiresAt <= this.now()) {
      this.drop(key, entry);
      this.expirations += 1;
      this.misses += 1;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits += 1;
    return entry.value;
  }

  /** Counts a hit served by a copy of an entry kept elsewhere (the analysis stored in the workspace). */
  noteHit(): void {
    this.hits += 1;
  }

  /** Seeds the counts saved by an earlier process, so the hit rate covers the workspace, not one run. */
  restoreCounts(saved: Pick<CacheStats, 'hits' | 'misses' | 'evictions' | 'expirations'>): void {
    this.hits = saved.hits;
    this.misses = saved.misses;
    this.evictions = saved.evictions;
    this.expirations = saved.expirations;
  }

  /** Looks without counting a hit or a miss and without refreshing the entry's place. */
  peek(key: string): T | undefined {
    const entry = this.entries.get(key);
    return entry && entry.expiresAt > this.now() ? entry.value : undefined;
  }

  /** Stores `value` under `key`, indexed under the chain types it holds. */
  set(key: string, value: T, types: readonly ChainType[] = []): void {
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    const entry: Entry<T> = { value, expiresAt: this.ttlMs > 0 ? this.now() + this.ttlMs : Infinity, types: [...new Set(types)] };
    this.entries.set(key, entry);
    for (const type of entry.types) {
      let keys = this.byType.get(type);
      if (!keys) this.byType.set(type, (keys = new Set()));
      keys.add(key);
    }
    while (this.entries.size > this.maxEntries) {
      const [lru, lruEntry] = this.entries.entries().next().value as [string, Entry<T>];
      this.drop(lru, lruEntry);
      this.evictions += 1;
    }
  }

  /** Keys of live entries that hold chains of `type` (the seed's per-type index). */
  keysOfType(type: ChainType): string[] {
    return [...(this.byType.get(type) ?? [])].filter((key) => this.peek(key) !== undefined);
  }

  /** Drops every entry holding chains of `type` (when that type's extractor changes); returns how many. */
  invalidateType(type: ChainType): number {
    const keys = [...(this.byType.get(type) ?? [])];
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (entry) this.drop(key, entry);
    }
    return keys.length;
  }

  delete(key: string): boolean {
    const entry = this.entries.get(key);
    if (entry) this.drop(key, entry);
    return entry !== undefined;
  }

  /** Drops expired entries now; returns how many. */
  sweep(): number {
    const now = this.now();
    let dropped = 0;
    for (const [key, entry] of [...this.entries]) {
      if (entry.expiresAt <= now) {
        this.drop(key, entry);
        this.expirations += 1;
        dropped += 1;
      }
    }
    return dropped;
  }

  clear(): void {
    this.entries.clear();
    this.byType.clear();
  }

  stats(): CacheStats {
    const lookups = this.hits + this.misses;
    const by_type: Partial<Record<ChainType, number>> = {};
    for (const [type, keys] of this.byType) if (keys.size > 0) by_type[type] = keys.size;
    return {
      size: this.entries.size,
      max_entries: this.maxEntries,
      ttl_ms: this.ttlMs,
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
      expirations: this.expirations,
      hit_rate: lookups === 0 ? 0 : Math.round((this.hits / lookups) * 10_000) / 10_000,
      by_type,
    };
  }

  private drop(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    for (const type of entry.types) {
      const keys = this.byType.get(type);
      keys?.delete(key);
      if (keys?.size === 0) this.byType.delete(type);
    }
  }
}
