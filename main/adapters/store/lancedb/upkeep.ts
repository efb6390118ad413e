/**
 * Index upkeep: when the table's full-text, scalar and vector (ANN) indexes are created, folded
 * over new rows, trained again, when the table is compacted, and when the versions that
 * compaction and every write replace are removed from disk. Kept apart from the store's reads
 * and writes because it is a policy with its own state (what exists, what runs, timers), tuned
 * by measurement; the reasons for each rule are in index.ts.
 */
import { readdir, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type * as LanceDB from '@lancedb/lancedb';
import { errorMessage } from '../../../../shared/errors.js';
import type { Logger } from '../../../engine/ports/logger.js';
import { FTS_COLUMN, VECTOR_COLUMN, vectorLayoutOf } from './arrow-codec.js';
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

/** `cleanupOlderThan` for an optimize that must remove no version (removal is a step of its own, see removeReplacedVersions). */
const KEEP_EVERY_VERSION = new Date(0);
/** Compactions per settling optimize at most (see optimizeNow). */
const MAX_COMPACTIONS = 3;
/** How long before the oldest version kept the cutoff stays, at least (see removalPlan). */
const CUTOFF_MARGIN_MS = 250;
/**
 * The background removal waits for writes to have paused this many times `keepReplacedMs`:
 * under load a run's writes pause for a few seconds often, and each removal is an optimize
 * (which rewrites an ANN index), so a pause of just `keepReplacedMs` set one off again and again
 * while the run was still writing (41 optimizes in one ingest of Go's src, bench/RESULTS.md).
 */
const BACKGROUND_QUIET_FACTOR = 3;

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
  /** Runs a write (a commit) of this handle; background removals and the writes wait for each other. */
  writing<T>(run: () => Promise<T>): Promise<T>;
  /** After a write or a delete: keep the FTS index covering the rows. */
  afterWrite(): Promise<void>;
  /** Whether the vector column has an ANN index, as last seen (looked at again every ANN_RECHECK_MS). */
  annIndexed(): Promise<boolean>;
  /** Compacts and folds every index over the rows, creating those the table's size calls for, and removes replaced versions. */
  optimize(reason: string): Promise<void>;
  /**
   * Stops the timers and waits for a running optimize; with `cleanupOnClose`, first waits for the
   * versions still too young to remove (at most `keepReplacedMs`) and removes them.
   */
  close(): Promise<void>;
}

export interface UpkeepDeps {
  lancedb: typeof LanceDB;
  table: LanceDB.Table;
  settings: UpkeepSettings;
  logger: Logger;
  /** Where the table is, for log lines. */
  where: Record<string, unknown>;
  /** The table's folder when it is on the local disk (empty index folders are removed there); null for object stores. */
  localDir: string | null;
}

export function createUpkeep({ lancedb, table, settings, logger, where, localDir }: UpkeepDeps): Upkeep {
  let ftsIndexName: string | null = null;
  let annIndexed = false;
  let annCheckedAt = 0;
  let optimizing: Promise<void> | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
  let closed = false;
  /** When the replaced versions left by the last removal may go too (0: none are left). */
  let cleanupDueAt = 0;
  let cleanupTimer: NodeJS.Timeout | null = null;
  let lastWriteAt = 0;
  let writesInFlight = 0;
  /** The removal the cleanup timer started, which this handle's writes wait for (see writing). */
  let backgroundRemoval: Promise<void> | null = null;
  /** The due time the background removal last ran for (see scheduleCleanup). */
  let triedDueAt = 0;
  /** How long this handle's last LanceDB optimize call took: its compaction delays the prune that follows (see optimizeRemoving). */
  let lastCallMs = 0;
  /** Rows written or deleted by this handle since its last optimize started: a settling optimize without them has nothing to fold in. */
  let dirty = false;

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
   * The rows that hold a vector: what an ANN index is trained on and searches. In a table whose
   * vector column is a list (arrow-codec.ts, VectorLayout), a resource file's L0 and L1 rows hold
   * none (an empty list), and counting every row built the index far too early: on a tree of
   * small files, two rows in three have no vector (bench/RESULTS.md, issue 20).
   */
  async function vectorRows(): Promise<number> {
    const type = (await table.schema()).fields.find((field) => field.name === VECTOR_COLUMN)?.type;
    return vectorLayoutOf(type) === 'float16-list' ? table.countRows(`array_length(${VECTOR_COLUMN}) > 0`) : table.countRows();
  }

  /**
   * Creates the indexes the table's size calls for: scalar indexes past `scalarIndexMinRows`,
   * and, when `withAnn`, the ANN index past `annMinRows` rows with a vector (trained again after
   * those doubled).
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
    const vectors = await vectorRows();
    if (vectors < settings.annMinRows) return;
    const trained = annIndexed ? await annTrainedRows() : null;
    if (!annIndexed || (trained !== null && vectors >= trained * ANN_RETRAIN_GROWTH)) {
      await buildAnnIndex(vectors);
      annIndexed = true;
    } else if (trained === null) {
      // An index made without the record (a writer that died between the two commits): count from now.
      await table.updateFieldMetadata([{ path: VECTOR_COLUMN, metadata: { [ANN_ROWS_KEY]: String(vectors) } }]);
    }
  }

  /**
   * The `cleanupOlderThan` that removes the versions replaced at least `keepReplacedMs` ago, and
   * when what is left will be due. LanceDB removes versions by commit time, not by when they were
   * replaced, so the cutoff is the commit time of the newest version already current
   * `keepReplacedMs` ago (the floor): every older version was replaced before it, so no query can
   * still be reading one (a reader that somehow still is asks again, see store.ts). The floor
   * itself may have been current until a moment ago, and LanceDB turns the date into an age and
   * back when it prunes, `driftMs` later at most: the cutoff stays that far before it. When the
   * floor is the latest version, which LanceDB never removes, everything older goes.
   */
  async function removalPlan(driftMs: number): Promise<{ cutoff: Date | null; dueAt: number }> {
    const versions = await table.listVersions();
    if (versions.length <= 1) return { cutoff: null, dueAt: 0 };
    const horizon = Date.now() - settings.keepReplacedMs;
    let latest = versions[0]!;
    let floor: LanceDB.Version | null = null;
    for (const version of versions) {
      if (version.version > latest.version) latest = version;
      if (version.timestamp.getTime() <= horizon && (!floor || version.version > floor.version)) floor = version;
    }
    // What is left goes once the latest version has been current for keepReplacedMs (maybe already).
    const dueAt = latest.timestamp.getTime() + settings.keepReplacedMs + 1;
    if (!floor) return { cutoff: null, dueAt };
    const cutoff = floor === latest ? floor.timestamp.getTime() + 1 : floor.timestamp.getTime() - driftMs;
    return { cutoff: versions.some((version) => version.timestamp.getTime() < cutoff) ? new Date(cutoff) : null, dueAt };
  }

  /** Runs one LanceDB optimize that also removes the versions before `cutoff`, and the index folders that leaves empty. */
  async function optimizeRemoving(cutoff: Date | null): Promise<LanceDB.OptimizeStats> {
    const filledBefore = cutoff ? await filledIndexFolders() : null;
    const started = Date.now();
    const stats = await table.optimize({ cleanupOlderThan: cutoff ?? KEEP_EVERY_VERSION });
    lastCallMs = Date.now() - started;
    if (stats.prune.oldVersionsRemoved > 0) {
      logger.debug('Removed replaced index versions', { ...where, versions: stats.prune.oldVersionsRemoved, bytes: stats.prune.bytesRemoved });
      await removeEmptyIndexFolders(filledBefore);
    }
    return stats;
  }

  /** The index folders (by name) that hold files, on a local disk; null elsewhere. */
  async function filledIndexFolders(): Promise<Set<string> | null> {
    if (!localDir) return null;
    const root = join(localDir, '_indices');
    const filled = new Set<string>();
    for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
      if (entry.isDirectory() && (await readdir(join(root, entry.name)).catch(() => [])).length > 0) filled.add(entry.name);
    }
    return filled;
  }

  /**
   * LanceDB removes an index's files but not its folder: one empty folder per index per
   * optimize, thousands after a few reindexes. A folder the prune emptied goes (no writer writes
   * into an index that exists), and so does one empty for longer than keepReplacedMs; a young
   * empty one may be an index another writer is about to write. rmdir refuses a folder with files.
   */
  async function removeEmptyIndexFolders(filledBefore: Set<string> | null): Promise<void> {
    if (!localDir || !filledBefore) return;
    const root = join(localDir, '_indices');
    for (const entry of await readdir(root, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory()) continue;
      const path = join(root, entry.name);
      if (!filledBefore.has(entry.name)) {
        const info = await stat(path).catch(() => null);
        if (!info || Date.now() - info.mtimeMs < settings.keepReplacedMs) continue;
      }
      await rmdir(path).catch(() => undefined);
    }
  }

  /**
   * Removes what is left once it is due, in the background, unless writes are still going (their
   * optimizes remove it). Once per due time: a removal that leaves versions behind with no newer
   * one appearing is not tried again until the next optimize.
   */
  function scheduleCleanup(): void {
    if (cleanupTimer) clearTimeout(cleanupTimer);
    cleanupTimer = null;
    if (cleanupDueAt === 0 || cleanupDueAt === triedDueAt || closed) return;
    const quietMs = BACKGROUND_QUIET_FACTOR * settings.keepReplacedMs;
    const at = Math.max(cleanupDueAt, lastWriteAt + quietMs, writesInFlight > 0 ? Date.now() + 50 : 0);
    cleanupTimer = setTimeout(() => {
      cleanupTimer = null;
      // Not while this handle writes, nor right after: a compaction racing the handle's own write
      // loses to it (or makes it retry) and leaves its files behind, for LanceDB to remove in 7 days.
      if (writesInFlight > 0 || Date.now() - lastWriteAt < quietMs) return scheduleCleanup();
      triedDueAt = cleanupDueAt;
      // One optimize call (it also folds in what writes left), not a settling one: a run that
      // pauses may write again, and its end optimizes anyway.
      const removal: Promise<void> = optimizeNow('replaced versions due', 'write').finally(() => {
        if (backgroundRemoval === removal) backgroundRemoval = null;
      });
      backgroundRemoval = removal;
    }, Math.max(0, at - Date.now()));
    // A pending tidy-up must not keep a process alive; a short-lived one finishes it in close() (cleanupOnClose).
    cleanupTimer.unref();
  }

  /**
   * Runs one optimize at a time per handle; a caller arriving meanwhile waits for the running one.
   *
   * - `write` (asked for by writes, during a run, and the background removal): one compaction,
   *   which also removes the versions that are clearly old. LanceDB prunes after it compacts, so
   *   the cutoff allows for twice the last call's time.
   * - `settle` (a closing handle): compacts until a compaction finds nothing (the first leaves
   *   new rows apart from the indexed ones, the next merges them), each call removing what is due.
   * - `full` (asked for, at the end of a run): `settle`, and may also train the ANN index, which
   *   takes seconds at 100k rows, so writes never ask for it.
   *
   * `settle` and `full` call LanceDB's optimize only for what there is to do: rows this handle
   * wrote (or the full-text index does not cover) since its last optimize, and versions due for
   * removal. That matters past `annMinRows`: LanceDB 0.37 rewrites a whole IVF index on every
   * optimize call, even one with nothing new to fold in (bench/RESULTS.md, issue 20), so each
   * needless call costs a copy of every vector on disk (until removed), its CPU and its memory.
   */
  async function optimizeNow(reason: string, mode: 'write' | 'settle' | 'full'): Promise<void> {
    if (optimizing) {
      if (mode === 'write') return optimizing;
      while (optimizing) await optimizing;
    }
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    const started = Date.now();
    optimizing = (async () => {
      try {
        let calls = 0;
        let compactions = 0;
        const margin = () => CUTOFF_MARGIN_MS + 2 * lastCallMs;
        const pending = dirty || mode === 'write' || (await unindexedRows()) > 0;
        // Writes finishing from here on are this optimize's or the next one's to fold in.
        dirty = false;
        if (mode === 'write') {
          calls += 1;
          if ((await optimizeRemoving((await removalPlan(margin())).cutoff)).compaction.fragmentsRemoved > 0) compactions += 1;
          await ensureIndexes(false);
        } else {
          if (pending) {
            while (calls < MAX_COMPACTIONS) {
              calls += 1;
              if ((await optimizeRemoving((await removalPlan(margin())).cutoff)).compaction.fragmentsRemoved === 0) break;
              compactions += 1;
            }
          }
          await ensureIndexes(mode === 'full');
          // One more call after folding: LanceDB compacts the fragments of new rows only once
          // they are indexed, and this call also removes what became due meanwhile. With nothing
          // folded in, it is made only when there is something to remove.
          const { cutoff } = await removalPlan(CUTOFF_MARGIN_MS);
          if (pending || cutoff) {
            calls += 1;
            if ((await optimizeRemoving(cutoff)).compaction.fragmentsRemoved > 0) compactions += 1;
          }
        }
        cleanupDueAt = (await removalPlan(0)).dueAt;
        scheduleCleanup();
        logger.debug('Index optimized', { ...where, reason, calls, compactions, ms: Date.now() - started });
      } catch (error) {
        // Usually another writer's optimize or commit got in first; theirs folds our rows in too.
        logger.warn('Index optimize failed; a later write tries again', { ...where, reason, error: errorMessage(error) });
      } finally {
        optimizing = null;
      }
    })();
    return optimizing;
  }

  /** Rows the full-text index does not cover (another writer's, or ones written before a kill); 0 without the index. */
  async function unindexedRows(): Promise<number> {
    const name = await ftsIndex();
    return name ? ((await table.indexStats(name))?.numUnindexedRows ?? 0) : 0;
  }

  async function afterWrite(): Promise<void> {
    lastWriteAt = Date.now();
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
    if (numUnindexedRows > numIndexedRows) return optimizeNow('index covers under half the rows', 'write');
    // The backlog allowed grows with the table, so a large table is not rewritten every few thousand rows.
    if (numUnindexedRows >= Math.max(settings.maxUnindexedRows, numIndexedRows * 0.1)) return optimizeNow('unindexed backlog', 'write');
    if (settings.idleOptimizeMs > 0 && !closed) {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        idleTimer = null;
        void optimizeNow('idle after writes', 'full');
      }, settings.idleOptimizeMs);
      // A pending tidy-up must not keep a CLI process alive.
      idleTimer.unref();
    }
  }

  const hasAnnIndex = (indices: LanceDB.IndexConfig[]) => indices.some((index) => index.columns.includes(VECTOR_COLUMN));

  return {
    ftsIndex,
    async writing(run) {
      // A write racing the background removal's compaction would lose to it or make it retry,
      // leaving files behind; that removal is short (its compaction has little left to do).
      while (backgroundRemoval) await backgroundRemoval;
      writesInFlight += 1;
      try {
        return await run();
      } finally {
        writesInFlight -= 1;
        lastWriteAt = Date.now();
        dirty = true;
      }
    },
    afterWrite,
    async annIndexed() {
      // Another writer may build the index: look again now and then, so this handle tunes its queries for it.
      if (Date.now() - annCheckedAt >= ANN_RECHECK_MS) {
        annCheckedAt = Date.now();
        annIndexed = hasAnnIndex(await table.listIndices());
      }
      return annIndexed;
    },
    optimize: (reason) => optimizeNow(reason, 'full'),
    async close() {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      await optimizing;
      // Each round waits for the versions left to come of age and removes them; a round leaves
      // more only when another writer is still committing, whose own optimizes remove them, or
      // when the table has an ANN index: LanceDB rewrites it in the very call that removes the
      // rest, and the version that rewrite replaced could only go with another rewrite. So one
      // round there, leaving two versions (and two copies of the ANN index) at most.
      const rounds = annIndexed ? 1 : 3;
      for (let round = 0, tried = 0; settings.cleanupOnClose && cleanupDueAt > 0 && cleanupDueAt !== tried && round < rounds; round += 1) {
        if (cleanupTimer) clearTimeout(cleanupTimer);
        cleanupTimer = null;
        tried = cleanupDueAt;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, cleanupDueAt - Date.now())));
        await optimizeNow('closing', 'settle');
      }
      closed = true;
      if (cleanupTimer) clearTimeout(cleanupTimer);
      cleanupTimer = null;
      await optimizing;
    },
  };
}
