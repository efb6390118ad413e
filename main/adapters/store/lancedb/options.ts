/**
 * What a LanceDB store can be opened with, and the defaults: one home for the knobs, so the
 * store (connection, queries) and the upkeep (index policy) read the same resolved values.
 */
import type { Logger } from '../../../engine/ports/logger.js';

/**
 * ANN index kinds: IVF_PQ (product-quantized codes, 1/64 of the vector), IVF_FLAT (partitions
 * of full vectors: exact distances, recall set by the probes alone), IVF_HNSW_SQ (a graph per
 * partition over 8-bit scalar-quantized vectors).
 */
export type AnnKind = 'ivf_pq' | 'ivf_flat' | 'ivf_hnsw_sq';

export interface LanceStoreOptions {
  /** A local folder, or an object-store URI LanceDB supports (s3://bucket/path, gs://, az://). */
  uri: string;
  /** One table per workspace. Default 'context'. */
  table?: string;
  /** Vector length; must match the table when it exists. */
  dimensions: number;
  /** Passed to LanceDB (credentials, region, endpoint for object stores). */
  storageOptions?: Record<string, string>;
  /**
   * Seconds between checks for other writers' commits. Default 0: every read sees the latest
   * commit. Object stores pay a round trip per check, so a shared remote index may prefer 1 to 5.
   */
  readConsistencySeconds?: number;
  /** When the existing table has other dimensions: 'error' (default) or 'recreate' (drop it; rebuild with `cairn reindex`). */
  onDimensionMismatch?: 'error' | 'recreate';
  /**
   * Rows the FTS index may leave unindexed (searched by a slower flat scan, about 6 µs a row per
   * query) before a write folds them in. Default 5000, or a tenth of the indexed rows when that is more.
   */
  maxUnindexedRows?: number;
  /** After this long without writes, fold what is left unindexed into the index in the background. Default 2000 ms; 0 never. */
  idleOptimizeMs?: number;
  /**
   * Rows holding a vector from which `optimize()` (asked for, or after writes pause) builds an
   * approximate (ANN) vector index; below it, vector search is exact. Default 60,000; `Infinity` never builds one.
   */
  annMinRows?: number;
  /** Rows from which optimizations build scalar indexes on the columns filters use. Default 1,000; `Infinity` never. */
  scalarIndexMinRows?: number;
  /**
   * How long a version of the table stays on disk once a newer one has replaced it, so that
   * queries already reading it (here or in another process) finish. Default 2000 ms plus the
   * read consistency interval (a handle may read a replaced version for that long).
   */
  keepReplacedMs?: number;
  /**
   * Whether `close()` waits for the versions replaced by this handle's last optimize to age past
   * `keepReplacedMs` and removes them (at most that long). For short-lived processes (the CLI),
   * which would otherwise leave them for the next writer. Default false: a long-lived handle
   * removes them in the background.
   */
  cleanupOnClose?: boolean;
  /**
   * Bytes LanceDB may keep in memory for index pages and for file metadata, shared by every
   * store this thread opens. Default 256 MB and 32 MB (see CACHE_DEFAULTS).
   */
  cache?: { indexBytes?: number; metadataBytes?: number };
  /** The ANN index and its query tuning (see ANN_DEFAULTS). */
  ann?: { kind?: AnnKind; nprobes?: number; refineFactor?: number };
  logger?: Logger;
}

/**
 * ANN defaults, measured on 100k × 512 local-embedder vectors (bench/search-scale.bench.mjs,
 * bench/RESULTS.md "Search at scale"). IVF_FLAT: the hashed local vectors have little cluster
 * structure and PQ codes ranked them poorly (recall@10 0.69 with an 8× refine, and 175 s to
 * train), while IVF_FLAT trained in about 10 s with recall@10 of 1.0 at 20 probes. Queries probe
 * `nprobes` partitions at least (more when a filter leaves too few rows in them) and re-rank
 * `refineFactor × k` candidates by exact cosine.
 */
const ANN_DEFAULTS: { kind: AnnKind; nprobes: number; refineFactor: number } = { kind: 'ivf_flat', nprobes: 20, refineFactor: 2 };

/**
 * LanceDB's caches. Its own defaults (6 GB for index pages, 1 GB for file metadata) are bounds
 * that a long ingest reaches: every version written adds its manifests, fragment metadata and
 * index pages, and a 50k-file ingest held hundreds of MB of them (bench/RESULTS.md, issue 20).
 * A search reads a few index pages per query, so 256 MB keeps the full-text and scalar indexes
 * of a large workspace resident; metadata past the latest versions is rarely read again.
 */
const CACHE_DEFAULTS = { indexBytes: 256 * 1024 * 1024, metadataBytes: 32 * 1024 * 1024 };

/** The cache sizes a store opens with, every default filled in. */
export function cacheSizes(options: LanceStoreOptions): { indexBytes: number; metadataBytes: number } {
  return {
    indexBytes: Math.max(0, Math.round(options.cache?.indexBytes ?? CACHE_DEFAULTS.indexBytes)),
    metadataBytes: Math.max(0, Math.round(options.cache?.metadataBytes ?? CACHE_DEFAULTS.metadataBytes)),
  };
}

/** The index upkeep's settings, every default filled in. */
export interface UpkeepSettings {
  dimensions: number;
  maxUnindexedRows: number;
  idleOptimizeMs: number;
  annMinRows: number;
  scalarIndexMinRows: number;
  annKind: AnnKind;
  keepReplacedMs: number;
  cleanupOnClose: boolean;
}

/** The query tuning for an ANN index. */
export interface AnnTuning {
  nprobes: number;
  refineFactor: number;
}

export function upkeepSettings(options: LanceStoreOptions): UpkeepSettings {
  return {
    dimensions: options.dimensions,
    maxUnindexedRows: options.maxUnindexedRows ?? 5000,
    idleOptimizeMs: options.idleOptimizeMs ?? 2000,
    annMinRows: options.annMinRows ?? 60_000,
    scalarIndexMinRows: options.scalarIndexMinRows ?? 1000,
    annKind: options.ann?.kind ?? ANN_DEFAULTS.kind,
    keepReplacedMs: Math.max(0, options.keepReplacedMs ?? 2000 + 1000 * (options.readConsistencySeconds ?? 0)),
    cleanupOnClose: options.cleanupOnClose ?? false,
  };
}

export function annTuning(options: LanceStoreOptions): AnnTuning {
  return {
    nprobes: Math.max(1, Math.round(options.ann?.nprobes ?? ANN_DEFAULTS.nprobes)),
    refineFactor: Math.max(1, Math.round(options.ann?.refineFactor ?? ANN_DEFAULTS.refineFactor)),
  };
}
