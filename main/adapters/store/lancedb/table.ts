/**
 * Opening the index table: loading LanceDB, connecting, creating the table when missing, and
 * checking what an existing one holds (its vector length, its primary key). Kept apart from the
 * store because each step must tolerate another process doing the same thing at the same moment.
 */
import type * as LanceDB from '@lancedb/lancedb';
import { Field, FixedSizeList, Float16, type Schema } from 'apache-arrow';
import { CairnError, errorMessage } from '../../../../shared/errors.js';
import type { Logger } from '../../../engine/ports/logger.js';
import { VECTOR_COLUMN, vectorDimensionsOf, vectorLayoutOf, type VectorLayout } from './arrow-codec.js';
import { cacheSizes, type LanceStoreOptions } from './options.js';

/** LanceDB's native module is large (about 180 MB): it loads when the first store opens, not when this file does. */
let lanceModule: Promise<typeof LanceDB> | null = null;
function loadLanceDb(): Promise<typeof LanceDB> {
  lanceModule ??= import('@lancedb/lancedb').catch((error: unknown) => {
    lanceModule = null;
    throw error;
  });
  return lanceModule;
}

export interface OpenedTable {
  lancedb: typeof LanceDB;
  db: LanceDB.Connection;
  table: LanceDB.Table;
  /** How the table stores vectors (see arrow-codec.ts): what writes must hand it. */
  vectorLayout: VectorLayout;
}

/**
 * One LanceDB session (its index and metadata caches) per cache size in this thread, shared by
 * every connection opened with it: a connection without one gets LanceDB's default session,
 * whose caches may grow to 6 GB and 1 GB (options.ts, CACHE_DEFAULTS).
 */
const sessions = new Map<string, LanceDB.Session>();
function sessionFor(lancedb: typeof LanceDB, options: LanceStoreOptions): LanceDB.Session {
  const { indexBytes, metadataBytes } = cacheSizes(options);
  const key = `${indexBytes}/${metadataBytes}`;
  let session = sessions.get(key);
  if (!session) {
    session = new lancedb.Session(BigInt(indexBytes), BigInt(metadataBytes));
    sessions.set(key, session);
  }
  return session;
}

/** Connects and opens (or creates) the table; any failure is one INDEX_FAILED saying where. */
export async function openTable(options: LanceStoreOptions, tableName: string, schema: Schema, logger: Logger): Promise<OpenedTable> {
  const { dimensions } = options;
  const where = { uri: options.uri, table: tableName };
  try {
    const lancedb = await loadLanceDb();
    // readConsistencyInterval 0: every read sees the latest commit. A default connection keeps
    // reading the version it opened, so a handle held for hours would miss other writers.
    const db = await lancedb.connect(options.uri, {
      readConsistencyInterval: options.readConsistencySeconds ?? 0,
      ...(options.storageOptions ? { storageOptions: options.storageOptions } : {}),
      session: sessionFor(lancedb, options),
    });
    let table = await openOrCreateTable(db, tableName, schema);
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
    return { lancedb, db, table, vectorLayout: await toHalfPrecision(table, dimensions, logger, where) };
  } catch (error) {
    if (CairnError.is(error)) throw error;
    throw new CairnError('INDEX_FAILED', `Could not open the index at ${options.uri}: ${errorMessage(error)}`, { cause: error, details: where });
  }
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

/**
 * Converts a table made with 32-bit vectors (before 16-bit ones) in place, once: its ANN index
 * is dropped first (LanceDB refuses to cast an indexed column; the next optimize trains it again,
 * and search is exact meanwhile), then the column is cast in one commit, so a reader sees either
 * the old table or the converted one, and a kill between the two steps leaves a table the next
 * open converts. When the cast fails (another process converting it at the same moment, a
 * read-only store) the table is used as it is: the codec reads and writes either kind.
 */
async function toHalfPrecision(table: LanceDB.Table, dimensions: number, logger: Logger, where: Record<string, unknown>): Promise<VectorLayout> {
  const element = async () => vectorLayoutOf((await table.schema()).fields.find((f) => f.name === VECTOR_COLUMN)?.type);
  if ((await element()) !== 'float32') return element();
  const started = Date.now();
  try {
    for (const index of await table.listIndices()) if (index.columns.includes(VECTOR_COLUMN)) await table.dropIndex(index.name);
    await table.alterColumns([{ path: VECTOR_COLUMN, dataType: new FixedSizeList(dimensions, new Field('item', new Float16(), true)) }]);
    logger.info('Converted the index vectors to 16-bit floats', { ...where, ms: Date.now() - started });
  } catch (error) {
    await table.checkoutLatest().catch(() => undefined);
    logger.warn('Could not convert the index vectors to 16-bit floats; keeping 32-bit ones', { ...where, error: errorMessage(error) });
  }
  return element();
}

async function vectorDimensions(table: LanceDB.Table): Promise<number> {
  const field = (await table.schema()).fields.find((f) => f.name === VECTOR_COLUMN);
  const dimensions = vectorDimensionsOf(field?.type);
  if (!dimensions) throw new CairnError('INDEX_FAILED', 'The index table has no vector column; was it made by another program?');
  return dimensions;
}

/** `id` as the table's (unenforced) primary key, so two writers inserting one new id conflict (see index.ts). */
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
