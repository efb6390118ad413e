/**
 * The VectorStore port: where index records live (LanceDB in production). Queries are plain data
 * (LlamaIndex style): one object per search with its filter, so a caller can log, cache or
 * forward a query without knowing the store.
 *
 * A store holds references, not truth: every record can be rebuilt from ContextFS. It never
 * embeds; vectors come from the caller, tagged with the model that made them (`embed_model`), so
 * a model change means re-embedding rows, never migrating a schema. No method may assume it is
 * the only writer: other threads, processes and machines write the same table.
 *
 * @example
 * await store.upsert([{ id: 'ctx://resources/docs/a.md#2', uri: 'ctx://resources/docs/a.md', level: 2, vector, embed_model: embedder.modelId, ... }]);
 * const hits = await store.vectorSearch({ vector: queryVector, k: 10, filter: { scope: 'resources', levels: [2] } });
 * await store.deleteByUriPrefix('ctx://resources/docs/'); // the directory and everything below it
 */
import type { ContextType, Provenance } from '../../../shared/types/node.js';
import type { Scope } from '../../../shared/uri.js';

export type RecordLevel = 0 | 1 | 2;

/** One row: a node's L0 abstract, L1 overview or L2 content, with its vector. */
export interface VectorRecord {
  /** Stable per node and level (`{uri}#{level}`), so writing the same node again replaces it. */
  id: string;
  uri: string;
  /** The directory URI (trailing `/`) the node sits in; null for a scope root. */
  parent_uri: string | null;
  level: RecordLevel;
  context_type: ContextType;
  category: string;
  text: string;
  /**
   * Null: the record is found by full text only (a store that holds such records says so with
   * `vectorsOptional`; see `hasOwnVector` in index/search-index.ts for which records they are).
   */
  vector: Float32Array | null;
  /** The `modelId` of the embedder that made `vector` (or would have made it). */
  embed_model: string;
  tokens: number;
  content_hash: string;
  /** ISO 8601. */
  updated_at: string;
  provenance: Provenance;
}

/** A record as read back; `vector` is left out where a query did not ask for it. */
export type StoredRecord = Omit<VectorRecord, 'vector'> & { vector?: Float32Array };

/** Conditions that all hold (AND); a list matches any of its values (OR). Empty lists match nothing. */
export interface VectorFilter {
  scope?: Scope | Scope[];
  /** Records whose URI starts with this text (use a directory URI with its trailing `/` for a subtree). */
  uriPrefix?: string;
  levels?: RecordLevel[];
  contextTypes?: ContextType[];
  categories?: string[];
  /** Only vectors made by this model. */
  embedModel?: string;
  /** Only vectors made by any other model (stale ones, for re-embedding). */
  notEmbedModel?: string;
  /** Records whose `parent_uri` is one of these (the children of directories). */
  parentUris?: string[];
}

export interface VectorSearchQuery {
  vector: Float32Array;
  k: number;
  filter?: VectorFilter;
  /** Return each record's vector too (default false). */
  withVectors?: boolean;
  /**
   * Compare with every matching vector, bypassing any approximate index (default false). For
   * narrow filters (a few directories' children), where an exact scan of the few rows is cheap.
   */
  exact?: boolean;
}

export interface TextSearchQuery {
  /** Natural text; the store analyses it the same way it analysed the records. */
  query: string;
  k: number;
  filter?: VectorFilter;
  withVectors?: boolean;
}

export interface ScoredRecord {
  record: StoredRecord;
  /**
   * vectorSearch: cosine similarity clamped to [0, 1] (1 = same direction, 0 = orthogonal or opposite).
   * textSearch: the BM25 score, unbounded and comparable only within one result list.
   */
  score: number;
}

export interface FindQuery {
  filter?: VectorFilter;
  limit: number;
  withVectors?: boolean;
}

export interface VectorStore {
  /** The vector length every record must have. */
  readonly dimensions: number;
  /** Whether records may come without a vector (`vector: null`); a store that cannot hold them refuses them. */
  readonly vectorsOptional?: boolean;
  /** Inserts new ids and replaces existing ones, atomically per call. */
  upsert(records: VectorRecord[]): Promise<void>;
  /**
   * Removes `uri` and, for a directory, everything below it. `ctx://r/a/` and `ctx://r/a` both
   * remove the node `a` and its subtree, never the sibling `ctx://r/ab/`. Returns the rows removed.
   */
  deleteByUriPrefix(uri: string): Promise<number>;
  /** Removes the records with these ids (missing ones are ignored). Returns the rows removed. */
  deleteIds(ids: string[]): Promise<number>;
  /** The id and URI of every record matching `filter`: no text nor vector, for sweeps over the whole table. */
  listIds(filter?: VectorFilter): Promise<{ id: string; uri: string }[]>;
  /** Records with these ids, with vectors, in no particular order; missing ids are left out. */
  get(ids: string[]): Promise<StoredRecord[]>;
  count(filter?: VectorFilter): Promise<number>;
  /** Nearest records by cosine similarity, best first. */
  vectorSearch(query: VectorSearchQuery): Promise<ScoredRecord[]>;
  /** Full-text (BM25) matches, best first. */
  textSearch(query: TextSearchQuery): Promise<ScoredRecord[]>;
  /**
   * The full-text statistics of analysed terms (as `searchTerms` makes them): how many records
   * hold each term, counted up to `cap` (a frequent term's exact count says nothing more), and
   * how many records there are. Optional: without it, search does not weigh query terms.
   */
  termDocumentCounts?(terms: readonly string[], cap: number): Promise<{ total: number; counts: number[] }>;
  /** The records whose `parent_uri` is `parentUri`, or one of them (the children of directories), with vectors. */
  listByParent(parentUri: string | string[], filter?: VectorFilter, limit?: number): Promise<StoredRecord[]>;
  /** Up to `limit` records matching `filter`, in no particular order (for scans such as re-embedding). */
  find(query: FindQuery): Promise<StoredRecord[]>;
  /** The distinct `embed_model` values present. */
  embedModels(): Promise<string[]>;
  /**
   * Folds rows written so far into the search indexes and compacts storage. Stores keep
   * themselves in shape as they are written; call this at the end of a bulk write (an ingest, a
   * reindex) so searches right after it run at full speed.
   */
  optimize(): Promise<void>;
  close(): Promise<void>;
}
