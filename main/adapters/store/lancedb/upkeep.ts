/**
 * Index upkeep: when the table's full-text, scalar and vector (ANN) indexes are created, folded
 * over new rows, trained again, and when the table is compacted. Kept apart from the store's
 * reads and writes because it is a policy with its own state (what exists, what runs, a timer),
 * tuned by measurement; the reasons for each rule are in index.ts.
 */
import type * as LanceDB from '@lancedb/lancedb';
import { errorMessage } from '../../../../shared/errors.js';
import type { Logger } from '../../../engine/ports/logger.js';
import { FTS_COLUMN, VECTOR_COLUMN } from './arrow-codec.js';
import type { UpkeepSettings } from './options.js';

const FTS_OPTIONS = {
  // The column is already analysed (see text-analysis.ts): LanceDB must only split on spaces.
  baseTokenizer: 'whitespace',
  lowercase: false,
  stem: false,
  removeStopWords: false,
  asciiFolding: false,
  withPosition: false,
} as const;

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

/** Field metadata on the vector column: the rows the ANN index was trained on (its partitions fit that size). */
const ANN_ROWS_KEY = 'cairn.ann_rows';
/** Retrain the ANN index (new partitions and codebooks) once the table has grown this many times since training. */
const ANN_RETRAIN_GROWTH = 2;
/** How often a handle looks whether another writer built or dropped the ANN index. */
const ANN_RECHECK_MS = 30_000;

export interface Upkeep {
  /** The FTS index's name, creating the index when the table has rows and none exists yet. */
  ftsIndex(): Promise<string | null>;
  /** After a write or a delete: keep the FTS index covering the rows. */
  afterWrite(): Promise<void>;
  /** Whether the vector column has an ANN index, as last seen (looked at again every ANN_RECHECK_MS). */
  annIndexed(): Promise<boolean>;
  /** Compacts and folds every index over the rows, creating those the table's size calls for. */
  optimize(reason: string): Promise<void>;
  /** Stops the idle timer and waits for a running optimize. */
  close(): Promise<void>;
}

export interface UpkeepDeps {
  lancedb: typeof LanceDB;
  table: LanceDB.Table;
  settings: UpkeepSettings;
  logger: Logger;
  /** Where the table is, for log lines. */
  where: Record<string, unknown>;
}

export function createUpkeep({ lancedb, table, settings, logger, where }: UpkeepDeps): Upkeep {
  let ftsIndexName: string | null = null;
  let annIndexed = false;
  let annCheckedAt = 0;
  let optimizing: Promise<void> | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
  let closed = false;

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
    const { dimensions, annKind } = settings;
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
    if (rows >= settings.scalarIndexMinRows) {
      for (const [column, kind] of SCALAR_INDEXES) {
        if (!indexed(column)) await createIndexOnce(column, kind === 'btree' ? lancedb.Index.btree() : lancedb.Index.bitmap(), false);
      }
    }
    annIndexed = indexed(VECTOR_COLUMN);
    annCheckedAt = Date.now();
    if (!withAnn || rows < settings.annMinRows) return;
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

  async function afterWrite(): Promise<void> {
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
    if (numUnindexedRows >= Math.max(settings.maxUnindexedRows, numIndexedRows * 0.1)) return optimizeNow('unindexed backlog');
    if (settings.idleOptimizeMs > 0 && !closed) {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        idleTimer = null;
        void optimizeNow('idle after writes', true);
      }, settings.idleOptimizeMs);
      // A pending tidy-up must not keep a CLI process alive.
      idleTimer.unref();
    }
  }

  const hasAnnIndex = (indices: LanceDB.IndexConfig[]) => indices.some((index) => index.columns.includes(VECTOR_COLUMN));

  return {
    ftsIndex,
    afterWrite,
    async annIndexed() {
      // Another writer may build the index: look again now and then, so this handle tunes its queries for it.
      if (Date.now() - annCheckedAt >= ANN_RECHECK_MS) {
        annCheckedAt = Date.now();
        annIndexed = hasAnnIndex(await table.listIndices());
      }
      return annIndexed;
    },
    optimize: (reason) => optimizeNow(reason, true),
    async close() {
      closed = true;
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      await optimizing;
    },
  };
}
