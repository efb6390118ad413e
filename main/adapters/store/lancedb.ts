/**
 * The VectorStore port on LanceDB (embedded; a local folder or an object-store URI that LanceDB
 * supports: s3://, gs://, az://).
 *
 * Decisions worth knowing:
 * - Reads see every commit: the connection uses `readConsistencyInterval: 0` (configurable), so a
 *   handle held for hours still sees what other threads, processes and machines wrote. A default
 *   connection keeps reading the version it opened (STACK.md gotcha 5).
 * - No single writer is assumed: writes are `mergeInsert` on `id` (idempotent), deletes are
 *   predicates, and a commit that loses a race to another writer is retried a bounded number of
 *   times. LanceDB already retries `mergeInsert` conflicts itself; ours covers what it gives up on.
 * - Full-text search runs on an `fts` column that holds the text as analysed by
 *   engine/index/text-analysis (stemmed words, CJK unigrams and bigrams, space separated),
 *   indexed with LanceDB's whitespace tokenizer, so Chinese works without a downloaded dictionary.
 *   LanceDB 0.37 also searches rows the FTS index has not seen yet (a flat scan), so new rows are
 *   found at once, but it scores them with the index's statistics: when the index covers no
 *   live rows the ranking is arbitrary, and when it covers few it is skewed
 *   (lance-format/lance#7107, #7905). So the index is created with the first rows, not on an
 *   empty table, and after every write `optimize()` folds new rows in whenever the unindexed
 *   rows outnumber the indexed ones, or exceed `maxUnindexedRows` (growing with the table), and
 *   otherwise once writes pause (`idleOptimizeMs`). The first rule makes the work geometric
 *   (amortised linear) during a fresh ingest; the second bounds flat scans during long ingests
 *   without rewriting a large table every few thousand rows (optimize compacts, which rewrites
 *   the small fragments); the third leaves a settled index fully indexed.
 * - The table has `id` as its (unenforced) primary key. Without it, two writers inserting the
 *   same new id at the same moment both succeed and the id is stored twice; with it, LanceDB
 *   sees the conflict and retries one of the merges.
 * - Vector search uses cosine distance, exact (flat) below `annMinRows` (20k by default; about
 *   10 to 20 ms at 10k × 512 on 2 cores, but it grows linearly). Past it, `optimize()` (asked
 *   for, or once writes pause; never a write itself) trains an IVF_PQ index, and queries probe
 *   at least `nprobes` partitions and re-rank `refineFactor × k` candidates by exact cosine, so
 *   scores stay exact. Rows written since are searched flat next to it until the next optimize
 *   folds them in; after the table doubles, the index is trained again.
 * - Scalar indexes (BTREE on id, uri, parent_uri; BITMAP on level, scope, context_type, category,
 *   embed_model) from `scalarIndexMinRows` rows: filters, `get` and `listByParent` then read
 *   index pages instead of scanning columns. Any optimization may create them (they take
 *   milliseconds); `table.optimize()` keeps every index current.
 * - The native module loads with the first `openLanceStore`, not with this file.
 *
 * @example
 * const store = await openLanceStore({ uri: join(workspace, 'index'), dimensions: embedder.dimensions });
 * await store.upsert(records);
 * const hits = await store.textSearch({ query: '快速入门', k: 5 });
 * await store.close();
 */
import type * as LanceDB from '@lancedb/lancedb';
import {
  Field,
  FixedSizeList,
  Float32,
  Int32,
  List,
  RecordBatch,
  Schema,
  Struct,
  Table as ArrowTable,
  Utf8,
  makeData,
  vectorFromArray,
  type Data,
  type DataType,
} from 'apache-arrow';
import { CairnError, errorMessage } from '../../../shared/errors.js';
import type { ContextType, Provenance } from '../../../shared/types/node.js';
import { parseCtxUri } from '../../../shared/uri.js';
import { ftsDocument, ftsQuery } from '../../lib/text-analysis.js';
import { silentLogger, type Logger } from '../../engine/ports/logger.js';
import type {
  FindQuery,
  RecordLevel,
  ScoredRecord,
  StoredRecord,
  TextSearchQuery,
  VectorFilter,
  VectorRecord,
  VectorSearchQuery,
  VectorStore,
} from '../../engine/ports/vector-store.js';

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
   * Rows from which `optimize()` (asked for, or after writes pause) builds an approximate (ANN)
   * vector index; below it, vector search is exact. Default 20,000; `Infinity` never builds one.
   */
  annMinRows?: number;
  /** Rows from which optimizations build scalar indexes on the columns filters use. Default 1,000; `Infinity` never. */
  scalarIndexMinRows?: number;
  /** The ANN index and its query tuning (see ANN_DEFAULTS). */
  ann?: { kind?: AnnKind; nprobes?: number; refineFactor?: number };
  logger?: Logger;
}

/** LanceDB's native module is large (about 180 MB): it loads when the first store opens, not when this file does. */
let lanceModule: Promise<typeof LanceDB> | null = null;
function loadLanceDb(): Promise<typeof LanceDB> {
  lanceModule ??= import('@lancedb/lancedb').catch((error: unknown) => {
    lanceModule = null;
    throw error;
  });
  return lanceModule;
}

const FTS_COLUMN = 'fts';
const FTS_OPTIONS = {
  // The column is already analysed (see text-analysis.ts): LanceDB must only split on spaces.
  baseTokenizer: 'whitespace',
  lowercase: false,
  stem: false,
  removeStopWords: false,
  asciiFolding: false,
  withPosition: false,
} as const;
const MAX_COMMIT_ATTEMPTS = 6;
/** Rows per mergeInsert: bounds the memory of one Arrow batch and the size of one commit. */
const WRITE_CHUNK = 4096;
/** Ids per `IN (...)` list, to keep predicates a reasonable size. */
const IDS_PER_QUERY = 500;
/** Versions older than this are deleted by optimize; generous, because other readers may still be on them. */
const KEEP_VERSIONS_MS = 60 * 60 * 1000;

/**
 * Scalar indexes on the columns that filters, `get` and `listByParent` read. Without them every
 * filtered query scans the column (a prefiltered vector search reads it in full before searching).
 * BTREE for columns of mostly distinct values, BITMAP for the few-valued ones.
 */
const SCALAR_INDEXES: readonly (readonly [column: string, kind: 'btree' | 'bitmap'])[] = [
  ['id', 'btree'],
  ['uri', 'btree'],
  ['parent_uri', 'btree'],
  ['level', 'bitmap'],
  ['scope', 'bitmap'],
  ['context_type', 'bitmap'],
  ['category', 'bitmap'],
  ['embed_model', 'bitmap'],
];

const VECTOR_COLUMN = 'vector';
/** Field metadata on the vector column: the rows the ANN index was trained on (its partitions fit that size). */
const ANN_ROWS_KEY = 'cairn.ann_rows';
/** Retrain the ANN index (new partitions and codebooks) once the table has grown this many times since training. */
const ANN_RETRAIN_GROWTH = 2;
/**
 * ANN defaults, measured on 100k × 512 local-embedder vectors (bench/search-scale.bench.mjs,
 * bench/RESULTS.md "Search at scale"). IVF_FLAT: the hashed local vectors have little cluster
 * structure and PQ codes ranked them poorly (recall@10 0.69 with an 8× refine, and 175 s to
 * train), while IVF_FLAT trained in about 10 s with recall@10 of 1.0 at 20 probes. Queries probe
 * `nprobes` partitions at least (more when a filter leaves too few rows in them) and re-rank
 * `refineFactor × k` candidates by exact cosine.
 */
const ANN_DEFAULTS: { kind: AnnKind; nprobes: number; refineFactor: number } = { kind: 'ivf_flat', nprobes: 20, refineFactor: 2 };
/** How often a handle looks whether another writer built or dropped the ANN index. */
const ANN_RECHECK_MS = 30_000;

/** Columns a caller reads (everything but the analysed text and, unless asked, the vector). */
const RECORD_COLUMNS = [
  'id',
  'uri',
  'parent_uri',
  'level',
  'context_type',
  'category',
  'text',
  'embed_model',
  'tokens',
  'content_hash',
  'updated_at',
  'source',
  'line_start',
  'line_end',
  'page_start',
  'page_end',
  'message_ids',
];

function tableSchema(dimensions: number): Schema {
  const utf8 = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);
  const int32 = (name: string, nullable = false) => new Field(name, new Int32(), nullable);
  return new Schema(
    [
      utf8('id'),
      utf8('uri'),
      utf8('parent_uri', true),
      // Derived from the URI and stored, so a scope filter is a plain equality.
      utf8('scope'),
      int32('level'),
      utf8('context_type'),
      utf8('category'),
      utf8('text'),
      utf8(FTS_COLUMN),
      new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), true)), false),
      utf8('embed_model'),
      int32('tokens'),
      utf8('content_hash'),
      utf8('updated_at'),
      utf8('source', true),
      int32('line_start', true),
      int32('line_end', true),
      int32('page_start', true),
      int32('page_end', true),
      new Field('message_ids', new List(new Field('item', new Utf8(), true)), true),
    ],
    new Map([['cairn.schema', '1']]),
  );
}

/** A SQL string literal for LanceDB predicates: quotes doubled; backslashes are literal in its dialect. */
export function sqlString(value: string): string {
  if (value.includes('\0')) throw new CairnError('INVALID_INPUT', 'A filter value contains a NUL character', { details: { value } });
  return `'${value.replace(/'/g, "''")}'`;
}

function sqlList(values: readonly string[]): string {
  return values.map(sqlString).join(', ');
}

/**
 * Translates a filter into a LanceDB `where` predicate, or undefined when there is nothing to
 * filter. Values are always quoted literals; prefixes use `starts_with`, not `LIKE`, so `%` and
 * `_` in URIs are plain characters.
 */
export function filterToSql(filter: VectorFilter | undefined, extra: string[] = []): string | undefined {
  const clauses = [...extra];
  if (filter) {
    if (filter.scope !== undefined) {
      const scopes = Array.isArray(filter.scope) ? filter.scope : [filter.scope];
      clauses.push(scopes.length === 0 ? 'false' : `scope IN (${sqlList(scopes)})`);
    }
    if (filter.uriPrefix !== undefined && filter.uriPrefix !== '') clauses.push(`starts_with(uri, ${sqlString(filter.uriPrefix)})`);
    if (filter.levels !== undefined) {
      for (const level of filter.levels) {
        if (level !== 0 && level !== 1 && level !== 2) throw new CairnError('INVALID_INPUT', `Unknown level ${String(level)}`, { details: { level } });
      }
      clauses.push(filter.levels.length === 0 ? 'false' : `level IN (${filter.levels.join(', ')})`);
    }
    if (filter.contextTypes !== undefined) clauses.push(filter.contextTypes.length === 0 ? 'false' : `context_type IN (${sqlList(filter.contextTypes)})`);
    if (filter.categories !== undefined) clauses.push(filter.categories.length === 0 ? 'false' : `category IN (${sqlList(filter.categories)})`);
    if (filter.embedModel !== undefined) clauses.push(`embed_model = ${sqlString(filter.embedModel)}`);
    if (filter.notEmbedModel !== undefined) clauses.push(`embed_model <> ${sqlString(filter.notEmbedModel)}`);
    if (filter.parentUris !== undefined) clauses.push(filter.parentUris.length === 0 ? 'false' : `parent_uri IN (${sqlList(filter.parentUris)})`);
  }
  if (clauses.length === 0) return undefined;
  return clauses.map((clause) => `(${clause})`).join(' AND ');
}

/** The predicate for "this node and everything below it" (see VectorStore.deleteByUriPrefix). */
export function subtreePredicate(uri: string): string {
  const base = uri.endsWith('/') ? uri.slice(0, -1) : uri;
  if (base === '' || !base.includes('://')) throw new CairnError('INVALID_URI', `Not a node URI: ${JSON.stringify(uri)}`, { details: { uri } });
  return `uri = ${sqlString(base)} OR starts_with(uri, ${sqlString(`${base}/`)})`;
}

function isCommitConflict(error: unknown): boolean {
  return /commit conflict|concurrent writer|retryable|conflicting/i.test(errorMessage(error));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Row {
  id: string;
  uri: string;
  parent_uri: string | null;
  scope: string;
  level: number;
  context_type: string;
  category: string;
  text: string;
  fts: string;
  embed_model: string;
  tokens: number;
  content_hash: string;
  updated_at: string;
  source: string | null;
  line_start: number | null;
  line_end: number | null;
  page_start: number | null;
  page_end: number | null;
  message_ids: string[] | null;
}

function utf8Data(values: (string | null)[]): Data {
  return vectorFromArray(values, new Utf8()).data[0] as Data;
}

function int32Data(values: (number | null)[]): Data {
  return vectorFromArray(values, new Int32()).data[0] as Data;
}

/**
 * Builds the Arrow batch by hand: handing LanceDB plain objects with Float32Array vectors costs
 * about 6× more (its row conversion walks every float).
 */
function toArrowTable(schema: Schema, rows: Row[], vectors: Float32Array[], dimensions: number): ArrowTable {
  const n = rows.length;
  const flat = new Float32Array(n * dimensions);
  vectors.forEach((vector, i) => flat.set(vector, i * dimensions));
  const vectorType = schema.fields.find((field) => field.name === 'vector')?.type as DataType;
  const columns: Record<string, Data> = {
    id: utf8Data(rows.map((r) => r.id)),
    uri: utf8Data(rows.map((r) => r.uri)),
    parent_uri: utf8Data(rows.map((r) => r.parent_uri)),
    scope: utf8Data(rows.map((r) => r.scope)),
    level: int32Data(rows.map((r) => r.level)),
    context_type: utf8Data(rows.map((r) => r.context_type)),
    category: utf8Data(rows.map((r) => r.category)),
    text: utf8Data(rows.map((r) => r.text)),
    fts: utf8Data(rows.map((r) => r.fts)),
    vector: makeData({ type: vectorType as FixedSizeList, length: n, nullCount: 0, child: makeData({ type: new Float32(), length: n * dimensions, data: flat }) }),
    embed_model: utf8Data(rows.map((r) => r.embed_model)),
    tokens: int32Data(rows.map((r) => r.tokens)),
    content_hash: utf8Data(rows.map((r) => r.content_hash)),
    updated_at: utf8Data(rows.map((r) => r.updated_at)),
    source: utf8Data(rows.map((r) => r.source)),
    line_start: int32Data(rows.map((r) => r.line_start)),
    line_end: int32Data(rows.map((r) => r.line_end)),
    page_start: int32Data(rows.map((r) => r.page_start)),
    page_end: int32Data(rows.map((r) => r.page_end)),
    message_ids: vectorFromArray(
      rows.map((r) => r.message_ids),
      schema.fields.find((field) => field.name === 'message_ids')?.type as List<Utf8>,
    ).data[0] as Data,
  };
  const children = schema.fields.map((field) => {
    const column = columns[field.name];
    if (!column) throw new CairnError('INTERNAL', `No data for column ${field.name}`);
    return column;
  });
  return new ArrowTable(new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children })));
}

function toRow(record: VectorRecord, dimensions: number): Row {
  if (typeof record.id !== 'string' || record.id === '') throw new CairnError('INVALID_INPUT', 'An index record needs an id', { details: { uri: record.uri } });
  if (record.level !== 0 && record.level !== 1 && record.level !== 2) {
    throw new CairnError('INVALID_INPUT', `Record ${record.id} has level ${String(record.level)}; expected 0, 1 or 2`, { details: { id: record.id } });
  }
  if (!(record.vector instanceof Float32Array) || record.vector.length !== dimensions) {
    throw new CairnError('INVALID_INPUT', `Record ${record.id} has a vector of ${record.vector?.length ?? 'no'} dimensions; the index holds ${dimensions}`, {
      details: { id: record.id, dimensions, got: record.vector?.length },
    });
  }
  for (let i = 0; i < record.vector.length; i += 1) {
    if (!Number.isFinite(record.vector[i])) throw new CairnError('INVALID_INPUT', `Record ${record.id} has a non-finite vector component at ${i}`, { details: { id: record.id } });
  }
  // parseCtxUri rejects URIs that could not have come from ContextFS; the scope column comes from it.
  const scope = parseCtxUri(record.uri).scope;
  const p = record.provenance ?? {};
  return {
    id: record.id,
    uri: record.uri,
    parent_uri: record.parent_uri ?? null,
    scope,
    level: record.level,
    context_type: record.context_type,
    category: record.category,
    text: record.text,
    fts: ftsDocument(record.text),
    embed_model: record.embed_model,
    tokens: Math.max(0, Math.round(record.tokens || 0)),
    content_hash: record.content_hash,
    updated_at: record.updated_at,
    source: p.source ?? null,
    line_start: p.lines?.[0] ?? null,
    line_end: p.lines?.[1] ?? null,
    page_start: p.pages?.[0] ?? null,
    page_end: p.pages?.[1] ?? null,
    message_ids: p.message_ids ?? null,
  };
}

interface ArrowVectorLike {
  toArray(): ArrayLike<unknown>;
}

/** A column of a query result, read by row index (missing columns read as null). */
type Column = { get(index: number): unknown } | null;

/**
 * Reads records column by column from a query's Arrow result. LanceDB's `toArray()` hands out
 * one proxy object per row whose every field access walks the schema; at a few hundred rows per
 * query (pools, a directory's children) that conversion cost as much as the search itself.
 * `extra` names a score column (`_distance`, `_score`) returned alongside.
 */
function recordsFromArrow(data: ArrowTable, withVector: boolean, extra?: string): { record: StoredRecord; extra: number }[] {
  const column = (name: string): Column => (data.schema.fields.some((field) => field.name === name) ? (data.getChild(name) as Column) : null);
  const at = (col: Column, i: number): unknown => (col ? col.get(i) : null);
  const cols = Object.fromEntries(RECORD_COLUMNS.map((name) => [name, column(name)])) as Record<string, Column>;
  const vectors = withVector ? column('vector') : null;
  const scores = extra ? column(extra) : null;
  const out: { record: StoredRecord; extra: number }[] = [];
  for (let i = 0; i < data.numRows; i += 1) {
    const provenance: Provenance = {};
    const source = at(cols.source ?? null, i);
    if (typeof source === 'string') provenance.source = source;
    const lineStart = at(cols.line_start ?? null, i);
    const lineEnd = at(cols.line_end ?? null, i);
    if (typeof lineStart === 'number' && typeof lineEnd === 'number') provenance.lines = [lineStart, lineEnd];
    const pageStart = at(cols.page_start ?? null, i);
    const pageEnd = at(cols.page_end ?? null, i);
    if (typeof pageStart === 'number' && typeof pageEnd === 'number') provenance.pages = [pageStart, pageEnd];
    const ids = at(cols.message_ids ?? null, i) as ArrowVectorLike | null;
    if (ids) provenance.message_ids = Array.from(ids.toArray(), String);
    const parent = at(cols.parent_uri ?? null, i);
    const record: StoredRecord = {
      id: String(at(cols.id ?? null, i)),
      uri: String(at(cols.uri ?? null, i)),
      parent_uri: typeof parent === 'string' ? parent : null,
      level: Number(at(cols.level ?? null, i)) as RecordLevel,
      context_type: String(at(cols.context_type ?? null, i)) as ContextType,
      category: String(at(cols.category ?? null, i)),
      text: String(at(cols.text ?? null, i)),
      embed_model: String(at(cols.embed_model ?? null, i)),
      tokens: Number(at(cols.tokens ?? null, i)),
      content_hash: String(at(cols.content_hash ?? null, i)),
      updated_at: String(at(cols.updated_at ?? null, i)),
      provenance,
    };
    const vector = at(vectors, i) as ArrowVectorLike | null;
    // Copy: the Arrow view points into a batch buffer that the next query may reuse.
    if (vector) record.vector = new Float32Array(vector.toArray() as Float32Array);
    out.push({ record, extra: Number(at(scores, i)) });
  }
  return out;
}

function dedupeById(records: VectorRecord[]): VectorRecord[] {
  // A merge with two source rows for one id is ambiguous to LanceDB; the last one wins, as in a Map.
  const byId = new Map<string, VectorRecord>();
  for (const record of records) byId.set(record.id, record);
  return byId.size === records.length ? records : [...byId.values()];
}

function clamp01(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return value < 0 ? 0 : value > 1 ? 1 : value;
}

/**
 * Opens the index table, creating it when missing; the full-text index follows with the first rows.
 *
 * @example
 * const store = await openLanceStore({ uri: 's3://team-bucket/cairn/index', dimensions: 1536, storageOptions: { region: 'eu-west-1' } });
 */
export async function openLanceStore(options: LanceStoreOptions): Promise<VectorStore> {
  const { dimensions } = options;
  const tableName = options.table ?? 'context';
  const logger = options.logger ?? silentLogger;
  const maxUnindexedRows = options.maxUnindexedRows ?? 5000;
  const idleOptimizeMs = options.idleOptimizeMs ?? 2000;
  const annMinRows = options.annMinRows ?? 20_000;
  const scalarIndexMinRows = options.scalarIndexMinRows ?? 1000;
  const annKind: AnnKind = options.ann?.kind ?? ANN_DEFAULTS.kind;
  const nprobes = Math.max(1, Math.round(options.ann?.nprobes ?? ANN_DEFAULTS.nprobes));
  const refineFactor = Math.max(1, Math.round(options.ann?.refineFactor ?? ANN_DEFAULTS.refineFactor));
  if (!Number.isInteger(dimensions) || dimensions <= 0) {
    throw new CairnError('INVALID_INPUT', `Index dimensions must be a positive integer, got ${dimensions}`, { details: { dimensions } });
  }
  const schema = tableSchema(dimensions);
  const where = { uri: options.uri, table: tableName };

  let lancedb: typeof LanceDB;
  let db: LanceDB.Connection;
  let table: LanceDB.Table;
  try {
    lancedb = await loadLanceDb();
    db = await lancedb.connect(options.uri, {
      readConsistencyInterval: options.readConsistencySeconds ?? 0,
      ...(options.storageOptions ? { storageOptions: options.storageOptions } : {}),
    });
    table = await openOrCreateTable(db, tableName, schema);
    const existing = await vectorDimensions(table);
    if (existing !== dimensions) {
      if (options.onDimensionMismatch !== 'recreate') {
        throw new CairnError(
          'INDEX_FAILED',
          `The index at ${options.uri} (table ${tableName}) holds ${existing}-dimensional vectors but the embedder makes ${dimensions}; rebuild it (cairn reindex) or open it with onDimensionMismatch: 'recreate'`,
          { details: { ...where, existing, dimensions, reason: 'dimension-mismatch' } },
        );
      }
      logger.warn('Recreating the index table for new vector dimensions; it must be rebuilt from ContextFS', { ...where, existing, dimensions });
      table.close();
      await db.dropTable(tableName);
      table = await openOrCreateTable(db, tableName, schema);
    }
    await ensurePrimaryKey(table);
  } catch (error) {
    if (CairnError.is(error)) throw error;
    throw new CairnError('INDEX_FAILED', `Could not open the index at ${options.uri}: ${errorMessage(error)}`, { cause: error, details: where });
  }

  let ftsIndexName: string | null = null;
  /** Whether the vector column has an ANN index, as last seen: at open, after each optimize, and every ANN_RECHECK_MS. */
  let annIndexed = false;
  let annCheckedAt = 0;
  const hasAnnIndex = (indices: LanceDB.IndexConfig[]) => indices.some((index) => index.columns.includes(VECTOR_COLUMN));
  /** Another writer may build the index: look again now and then, so this handle tunes its queries for it. */
  async function refreshAnnIndexed(): Promise<void> {
    if (Date.now() - annCheckedAt < ANN_RECHECK_MS) return;
    annCheckedAt = Date.now();
    annIndexed = hasAnnIndex(await table.listIndices());
  }
  let optimizing: Promise<void> | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
  let closed = false;
  const fail = (op: string, error: unknown, details: Record<string, unknown> = {}): never => {
    if (CairnError.is(error)) throw error;
    throw new CairnError('INDEX_FAILED', `Index ${op} failed: ${errorMessage(error)}`, {
      cause: error,
      details: { ...where, op, ...details },
      retryable: isCommitConflict(error),
    });
  };

  const ensureOpen = (op: string) => {
    if (closed) throw new CairnError('INDEX_FAILED', `Index ${op} after close`, { details: { ...where, op } });
  };

  /** Runs a write, retrying when another writer's commit got in first. */
  async function commit<T>(op: string, write: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await write();
      } catch (error) {
        if (attempt >= MAX_COMMIT_ATTEMPTS || !isCommitConflict(error)) return fail(op, error, { attempts: attempt });
        const delay = Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random());
        logger.debug('Index commit conflict; retrying', { op, attempt, delayMs: Math.round(delay), error: errorMessage(error) });
        await sleep(delay);
      }
    }
  }

  /** The FTS index's name, creating the index when the table has rows and none exists yet. */
  async function ftsIndex(): Promise<string | null> {
    if (ftsIndexName) return ftsIndexName;
    const find = async () => (await table.listIndices()).find((index) => index.indexType === 'FTS' && index.columns.includes(FTS_COLUMN))?.name ?? null;
    ftsIndexName = await find();
    if (ftsIndexName || (await table.countRows()) === 0) return ftsIndexName;
    try {
      await table.createIndex(FTS_COLUMN, { config: lancedb.Index.fts(FTS_OPTIONS), replace: false });
    } catch (error) {
      // Another writer may have created it first; anything else is a real failure.
      if (!(await find())) throw error;
    }
    ftsIndexName = await find();
    return ftsIndexName;
  }

  /** Creates an index unless it exists; another writer making the same one first is not an error. */
  async function createIndexOnce(column: string, config: LanceDB.Index, replace: boolean): Promise<void> {
    try {
      await table.createIndex(column, { config, replace });
    } catch (error) {
      if (!replace && (await table.listIndices()).some((index) => index.columns.includes(column))) return;
      throw error;
    }
  }

  async function annTrainedRows(): Promise<number | null> {
    const field = (await table.schema()).fields.find((f) => f.name === VECTOR_COLUMN);
    const value = Number(field?.metadata.get(ANN_ROWS_KEY));
    return Number.isFinite(value) && value > 0 ? value : null;
  }

  /**
   * The ANN index with cosine distance: about √rows partitions (IVF_PQ: 16 dimensions per PQ
   * sub-vector, 8 when the length is not a multiple of 16). Rows written later are added to the
   * nearest partitions by `optimize()` until the table has doubled, then the index is trained
   * again, so partitions keep about the size they were trained for.
   */
  async function buildAnnIndex(rows: number): Promise<void> {
    const started = Date.now();
    const numSubVectors = dimensions % 16 === 0 ? dimensions / 16 : dimensions % 8 === 0 ? dimensions / 8 : 1;
    const numPartitions = Math.max(1, Math.min(4096, Math.round(Math.sqrt(rows))));
    const config =
      annKind === 'ivf_flat'
        ? lancedb.Index.ivfFlat({ distanceType: 'cosine', numPartitions })
        : annKind === 'ivf_hnsw_sq'
          ? lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: Math.max(1, Math.round(numPartitions / 8)) })
          : lancedb.Index.ivfPq({ distanceType: 'cosine', numPartitions, numSubVectors });
    await createIndexOnce(VECTOR_COLUMN, config, true);
    try {
      await table.updateFieldMetadata([{ path: VECTOR_COLUMN, metadata: { [ANN_ROWS_KEY]: String(rows) } }]);
    } catch (error) {
      // Only the retraining schedule depends on it: the next optimize tries again.
      logger.warn('Could not record the ANN index size', { ...where, error: errorMessage(error) });
    }
    logger.info('Built the vector (ANN) index', { ...where, rows, numPartitions, ms: Date.now() - started });
  }

  /**
   * Creates the indexes the table's size calls for: scalar indexes past `scalarIndexMinRows`,
   * and, when `withAnn`, the ANN index past `annMinRows` (trained again after the table doubled).
   * Existing indexes are kept current by `table.optimize()`, which folds new rows into each.
   */
  async function ensureIndexes(withAnn: boolean): Promise<void> {
    const rows = await table.countRows();
    if (rows === 0) return;
    const indices = await table.listIndices();
    const indexed = (column: string) => indices.some((index) => index.columns.includes(column));
    if (rows >= scalarIndexMinRows) {
      for (const [column, kind] of SCALAR_INDEXES) {
        if (!indexed(column)) await createIndexOnce(column, kind === 'btree' ? lancedb.Index.btree() : lancedb.Index.bitmap(), false);
      }
    }
    annIndexed = indexed(VECTOR_COLUMN);
    annCheckedAt = Date.now();
    if (!withAnn || rows < annMinRows) return;
    const trained = annIndexed ? await annTrainedRows() : null;
    if (!annIndexed || (trained !== null && rows >= trained * ANN_RETRAIN_GROWTH)) {
      await buildAnnIndex(rows);
      annIndexed = true;
    } else if (trained === null) {
      // An index made without the record (a writer that died between the two commits): count from now.
      await table.updateFieldMetadata([{ path: VECTOR_COLUMN, metadata: { [ANN_ROWS_KEY]: String(rows) } }]);
    }
  }

  /**
   * Runs one optimize at a time per handle; a caller arriving meanwhile waits for the running one.
   * `buildIndexes` (an explicit optimize, or writes pausing) may also train the ANN index, which
   * takes seconds at 100k rows, so writes never ask for it.
   */
  async function optimizeNow(reason: string, buildIndexes = false): Promise<void> {
    if (optimizing) {
      if (!buildIndexes) return optimizing;
      while (optimizing) await optimizing;
    }
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    const started = Date.now();
    optimizing = (async () => {
      try {
        await table.optimize({ cleanupOlderThan: new Date(Date.now() - KEEP_VERSIONS_MS) });
        await ensureIndexes(buildIndexes);
        logger.debug('Index optimized', { ...where, reason, ms: Date.now() - started });
      } catch (error) {
        // Usually another writer's optimize or commit got in first; theirs folds our rows in too.
        logger.warn('Index optimize failed; a later write tries again', { ...where, reason, error: errorMessage(error) });
      } finally {
        optimizing = null;
      }
    })();
    return optimizing;
  }

  /** After a write: keep the FTS index covering the rows (see the notes at the top of this file). */
  async function maintainFts(): Promise<void> {
    const name = await ftsIndex();
    if (!name) return;
    const stats = await table.indexStats(name);
    if (!stats) {
      // Dropped by someone else (a recreated table): find or make it again next time.
      ftsIndexName = null;
      return;
    }
    const { numIndexedRows, numUnindexedRows } = stats;
    if (numUnindexedRows === 0) return;
    if (numUnindexedRows > numIndexedRows) return optimizeNow('index covers under half the rows');
    // The backlog allowed grows with the table, so a large table is not rewritten every few thousand rows.
    if (numUnindexedRows >= Math.max(maxUnindexedRows, numIndexedRows * 0.1)) return optimizeNow('unindexed backlog');
    if (idleOptimizeMs > 0 && !closed) {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        idleTimer = null;
        void optimizeNow('idle after writes', true);
      }, idleOptimizeMs);
      // A pending tidy-up must not keep a CLI process alive.
      idleTimer.unref();
    }
  }


  const columns = (withVectors: boolean | undefined) => (withVectors ? [...RECORD_COLUMNS, 'vector'] : RECORD_COLUMNS);

  async function select(predicate: string | undefined, limit: number | undefined, withVectors: boolean): Promise<StoredRecord[]> {
    let query = table.query().select(columns(withVectors));
    if (predicate) query = query.where(predicate);
    if (limit !== undefined) query = query.limit(limit);
    return recordsFromArrow(await query.toArrow(), withVectors).map((row) => row.record);
  }

  const store: VectorStore = {
    dimensions,

    async upsert(records) {
      ensureOpen('upsert');
      if (records.length === 0) return;
      const unique = dedupeById(records);
      for (let start = 0; start < unique.length; start += WRITE_CHUNK) {
        const chunk = unique.slice(start, start + WRITE_CHUNK);
        const rows = chunk.map((record) => toRow(record, dimensions));
        const data = toArrowTable(schema, rows, chunk.map((record) => record.vector), dimensions);
        await commit('upsert', () => table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data));
      }
      try {
        await maintainFts();
      } catch (error) {
        fail('full-text index upkeep', error);
      }
    },

    async deleteByUriPrefix(uri) {
      ensureOpen('delete');
      const predicate = subtreePredicate(uri);
      const result = await commit('delete', () => table.delete(predicate));
      // Deleting indexed rows can leave the index covering none of the rest.
      if (result.numDeletedRows > 0) {
        try {
          await maintainFts();
        } catch (error) {
          fail('full-text index upkeep', error);
        }
      }
      return result.numDeletedRows;
    },

    async get(ids) {
      ensureOpen('get');
      const out: StoredRecord[] = [];
      const unique = [...new Set(ids)];
      for (let start = 0; start < unique.length; start += IDS_PER_QUERY) {
        const chunk = unique.slice(start, start + IDS_PER_QUERY);
        try {
          out.push(...(await select(`id IN (${sqlList(chunk)})`, undefined, true)));
        } catch (error) {
          fail('get', error);
        }
      }
      return out;
    },

    async count(filter) {
      ensureOpen('count');
      try {
        const predicate = filterToSql(filter);
        return predicate ? await table.countRows(predicate) : await table.countRows();
      } catch (error) {
        return fail('count', error);
      }
    },

    async vectorSearch(query: VectorSearchQuery): Promise<ScoredRecord[]> {
      ensureOpen('vector search');
      if (query.vector.length !== dimensions) {
        throw new CairnError('INVALID_INPUT', `Query vector has ${query.vector.length} dimensions; the index holds ${dimensions}`, { details: { dimensions, got: query.vector.length } });
      }
      if (query.k <= 0) return [];
      try {
        let search = table.query().nearestTo(query.vector).distanceType('cosine').select([...columns(query.withVectors), '_distance']).limit(query.k);
        // With an ANN index: probe enough partitions (more if a filter leaves too few rows in
        // them) and re-rank by exact cosine. Without one these settings do nothing.
        if (query.exact) {
          search = search.bypassVectorIndex();
        } else {
          await refreshAnnIndexed();
          if (annIndexed) search = search.maximumNprobes(0).minimumNprobes(nprobes).refineFactor(refineFactor);
        }
        const predicate = filterToSql(query.filter);
        if (predicate) search = search.where(predicate);
        // Cosine distance is 1 - cos; as a score, orthogonal and opposite directions both mean "unrelated".
        return recordsFromArrow(await search.toArrow(), query.withVectors === true, '_distance').map((row) => ({ record: row.record, score: clamp01(1 - row.extra) }));
      } catch (error) {
        return fail('vector search', error);
      }
    },

    async textSearch(query: TextSearchQuery): Promise<ScoredRecord[]> {
      ensureOpen('text search');
      const terms = ftsQuery(query.query);
      if (terms === '' || query.k <= 0) return [];
      try {
        // No index means no rows yet (or a writer that died before making it): nothing to match or make it now.
        if (!(await ftsIndex())) return [];
        let search = table
          .query()
          .fullTextSearch(new lancedb.MatchQuery(terms, FTS_COLUMN, { operator: lancedb.Operator.Or }))
          // Naming the score column keeps LanceDB from warning on stderr that it adds it implicitly.
          .select([...columns(query.withVectors), '_score'])
          .limit(query.k);
        const predicate = filterToSql(query.filter);
        if (predicate) search = search.where(predicate);
        return recordsFromArrow(await search.toArrow(), query.withVectors === true, '_score').map((row) => ({ record: row.record, score: row.extra || 0 }));
      } catch (error) {
        return fail('text search', error);
      }
    },

    async listByParent(parentUri, filter, limit = 10_000) {
      ensureOpen('list');
      const parents = Array.isArray(parentUri) ? parentUri : [parentUri];
      if (parents.length === 0) return [];
      try {
        return await select(filterToSql({ ...filter, parentUris: parents }), limit, true);
      } catch (error) {
        return fail('list', error, { parentUri });
      }
    },

    async find(query: FindQuery) {
      ensureOpen('find');
      try {
        return await select(filterToSql(query.filter), query.limit, query.withVectors === true);
      } catch (error) {
        return fail('find', error);
      }
    },

    async embedModels() {
      ensureOpen('embedModels');
      // LanceDB has no DISTINCT: ask for one row outside the models found so far, once per model.
      const models: string[] = [];
      try {
        for (;;) {
          let query = table.query().select(['embed_model']).limit(1);
          if (models.length > 0) query = query.where(`embed_model NOT IN (${sqlList(models)})`);
          const rows = (await query.toArray()) as { embed_model: string }[];
          const next = rows[0]?.embed_model;
          if (next === undefined) return models.sort();
          models.push(next);
        }
      } catch (error) {
        return fail('embedModels', error);
      }
    },

    async optimize() {
      ensureOpen('optimize');
      if (!(await ftsIndex())) return;
      await optimizeNow('asked', true);
    },

    async close() {
      if (closed) return;
      closed = true;
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      await optimizing;
      table.close();
      db.close();
    },
  };
  return store;
}

async function openOrCreateTable(db: LanceDB.Connection, name: string, schema: Schema): Promise<LanceDB.Table> {
  if ((await db.tableNames()).includes(name)) return db.openTable(name);
  try {
    return await db.createEmptyTable(name, schema, { existOk: true });
  } catch (error) {
    // Another process created it between our listing and our create.
    if ((await db.tableNames()).includes(name)) return db.openTable(name);
    throw error;
  }
}

async function vectorDimensions(table: LanceDB.Table): Promise<number> {
  const field = (await table.schema()).fields.find((f) => f.name === 'vector');
  const type = field?.type as { listSize?: number } | undefined;
  if (!type?.listSize) throw new CairnError('INDEX_FAILED', 'The index table has no fixed-size vector column; was it made by another program?');
  return type.listSize;
}

async function ensurePrimaryKey(table: LanceDB.Table): Promise<void> {
  // LanceDB records the key as field metadata; reading it spares a failing call on every open.
  const id = (await table.schema()).fields.find((field) => field.name === 'id');
  if ([...(id?.metadata.keys() ?? [])].some((key) => key.includes('primary-key'))) return;
  try {
    await table.setUnenforcedPrimaryKey('id');
  } catch (error) {
    // Two processes opening a fresh table race to set it; the loser is told it is already set.
    if (!/primary key is already set/i.test(errorMessage(error))) throw error;
  }
}
