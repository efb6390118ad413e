/**
 * The VectorStore port on one LanceDB table: opening it, writes (idempotent merges on `id`,
 * retried when another writer's commit got in first), deletes, reads and searches. The Arrow
 * conversion (arrow-codec.ts), the predicates (filters.ts) and when indexes are built or folded
 * over new rows (upkeep.ts) live beside it; the decisions behind them are in index.ts.
 */
import { join } from 'node:path';
import { CairnError, errorMessage } from '../../../../shared/errors.js';
import { ftsQuery } from '../../../lib/text-analysis.js';
import { silentLogger } from '../../../engine/ports/logger.js';
import type { FindQuery, ScoredRecord, StoredRecord, TextSearchQuery, VectorRecord, VectorSearchQuery, VectorStore } from '../../../engine/ports/vector-store.js';
import { FTS_COLUMN, RECORD_COLUMNS, VECTOR_COLUMN, recordsFromArrow, tableSchema, toArrowTable } from './arrow-codec.js';
import { filterToSql, sqlList, subtreePredicate } from './filters.js';
import { annTuning, upkeepSettings, type LanceStoreOptions } from './options.js';
import { openTable } from './table.js';
import { createUpkeep } from './upkeep.js';

const MAX_COMMIT_ATTEMPTS = 6;
/** Rows per mergeInsert: bounds the memory of one Arrow batch and the size of one commit. */
const WRITE_CHUNK = 4096;
/** Ids per `IN (...)` list, to keep predicates a reasonable size. */
const IDS_PER_QUERY = 500;

function isCommitConflict(error: unknown): boolean {
  return /commit conflict|concurrent writer|retryable|conflicting/i.test(errorMessage(error));
}

/**
 * A file of the table that is gone: the version being read was replaced and removed meanwhile
 * (a handle that read it for longer than `keepReplacedMs`, see upkeep.ts). Asking again on the
 * latest version answers.
 */
function isRemovedFile(error: unknown): boolean {
  return /not found/i.test(errorMessage(error)) && /\.lance\/|_versions|_indices|_deletions|_transactions/.test(errorMessage(error));
}

/** The table's folder when the index is on the local disk (no URI scheme, or file://); null for object stores. */
function localTableDir(uri: string, table: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri) && !uri.startsWith('file://')) return null;
  return join(uri.startsWith('file://') ? new URL(uri).pathname : uri, `${table}.lance`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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
  if (!Number.isInteger(dimensions) || dimensions <= 0) {
    throw new CairnError('INVALID_INPUT', `Index dimensions must be a positive integer, got ${dimensions}`, { details: { dimensions } });
  }
  const where = { uri: options.uri, table: tableName };
  const { lancedb, db, table, vectorLayout } = await openTable(options, tableName, tableSchema(dimensions), logger);
  // Writes hand the table the vectors as it holds them (arrow-codec.ts, VectorLayout).
  const schema = tableSchema(dimensions, vectorLayout);
  const upkeep = createUpkeep({ lancedb, table, settings: upkeepSettings(options), logger, where, localDir: localTableDir(options.uri, tableName) });
  const { nprobes, refineFactor } = annTuning(options);
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

  /** Runs a read; one that met a removed file (see isRemovedFile) moves to the latest version and runs again. */
  async function read<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (!isRemovedFile(error)) throw error;
      logger.debug('Index read met a removed version; reading the latest', { ...where, error: errorMessage(error) });
      // If even that fails (the table is gone), running again says so.
      await table.checkoutLatest().catch(() => undefined);
      return run();
    }
  }

  /** Runs a write, retrying when another writer's commit got in first, or removed the version it started from. */
  async function commit<T>(op: string, write: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await upkeep.writing(write);
      } catch (error) {
        const removed = isRemovedFile(error);
        if (attempt >= MAX_COMMIT_ATTEMPTS || !(removed || isCommitConflict(error))) return fail(op, error, { attempts: attempt });
        // Moving to the latest version may fail too (the table is gone): the next attempt then says so.
        if (removed) await table.checkoutLatest().catch(() => undefined);
        const delay = Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random());
        logger.debug('Index commit conflict; retrying', { op, attempt, delayMs: Math.round(delay), error: errorMessage(error) });
        await sleep(delay);
      }
    }
  }

  async function afterWrite(): Promise<void> {
    try {
      await upkeep.afterWrite();
    } catch (error) {
      fail('full-text index upkeep', error);
    }
  }

  const columns = (withVectors: boolean | undefined) => (withVectors ? [...RECORD_COLUMNS, VECTOR_COLUMN] : RECORD_COLUMNS);

  async function select(predicate: string | undefined, limit: number | undefined, withVectors: boolean): Promise<StoredRecord[]> {
    return read(async () => {
      let query = table.query().select(columns(withVectors));
      if (predicate) query = query.where(predicate);
      if (limit !== undefined) query = query.limit(limit);
      return recordsFromArrow(await query.toArrow(), withVectors).map((row) => row.record);
    });
  }

  const store: VectorStore = {
    dimensions,
    vectorsOptional: vectorLayout === 'float16-list',

    async upsert(records) {
      ensureOpen('upsert');
      if (records.length === 0) return;
      const unique = dedupeById(records);
      for (let start = 0; start < unique.length; start += WRITE_CHUNK) {
        const data = toArrowTable(schema, unique.slice(start, start + WRITE_CHUNK), dimensions);
        await commit('upsert', () => table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data));
      }
      await afterWrite();
    },

    async deleteByUriPrefix(uri) {
      ensureOpen('delete');
      const predicate = subtreePredicate(uri);
      const result = await commit('delete', () => table.delete(predicate));
      // Deleting indexed rows can leave the index covering none of the rest.
      if (result.numDeletedRows > 0) await afterWrite();
      return result.numDeletedRows;
    },

    async deleteIds(ids) {
      ensureOpen('delete');
      const unique = [...new Set(ids)];
      let deleted = 0;
      for (let start = 0; start < unique.length; start += IDS_PER_QUERY) {
        const predicate = `id IN (${sqlList(unique.slice(start, start + IDS_PER_QUERY))})`;
        deleted += (await commit('delete', () => table.delete(predicate))).numDeletedRows;
      }
      if (deleted > 0) await afterWrite();
      return deleted;
    },

    async listIds(filter) {
      ensureOpen('list ids');
      try {
        const predicate = filterToSql(filter);
        const data = await read(() => {
          let query = table.query().select(['id', 'uri']);
          if (predicate) query = query.where(predicate);
          return query.toArrow();
        });
        const ids = data.getChild('id');
        const uris = data.getChild('uri');
        return Array.from({ length: data.numRows }, (_, i) => ({ id: String(ids?.get(i)), uri: String(uris?.get(i)) }));
      } catch (error) {
        return fail('list ids', error);
      }
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
        return await read(() => (predicate ? table.countRows(predicate) : table.countRows()));
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
        const predicate = filterToSql(query.filter);
        return await read(async () => {
          let search = table.query().nearestTo(query.vector).distanceType('cosine').select([...columns(query.withVectors), '_distance']).limit(query.k);
          // With an ANN index: probe enough partitions (more if a filter leaves too few rows in
          // them) and re-rank by exact cosine. Without one these settings do nothing.
          if (query.exact) search = search.bypassVectorIndex();
          else if (await upkeep.annIndexed()) search = search.maximumNprobes(0).minimumNprobes(nprobes).refineFactor(refineFactor);
          if (predicate) search = search.where(predicate);
          // Cosine distance is 1 - cos; as a score, orthogonal and opposite directions both mean "unrelated".
          return recordsFromArrow(await search.toArrow(), query.withVectors === true, '_distance').map((row) => ({ record: row.record, score: clamp01(1 - row.extra) }));
        });
      } catch (error) {
        return fail('vector search', error);
      }
    },

    async textSearch(query: TextSearchQuery): Promise<ScoredRecord[]> {
      ensureOpen('text search');
      const terms = ftsQuery(query.query);
      if (terms === '' || query.k <= 0) return [];
      try {
        const predicate = filterToSql(query.filter);
        return await read(async () => {
          // No index means no rows yet (or a writer that died before making it): nothing to match or make it now.
          if (!(await upkeep.ftsIndex())) return [];
          let search = table
            .query()
            .fullTextSearch(new lancedb.MatchQuery(terms, FTS_COLUMN, { operator: lancedb.Operator.Or }))
            // Naming the score column keeps LanceDB from warning on stderr that it adds it implicitly.
            .select([...columns(query.withVectors), '_score'])
            .limit(query.k);
          if (predicate) search = search.where(predicate);
          return recordsFromArrow(await search.toArrow(), query.withVectors === true, '_score').map((row) => ({ record: row.record, score: row.extra || 0 }));
        });
      } catch (error) {
        return fail('text search', error);
      }
    },

    async termDocumentCounts(terms, cap) {
      ensureOpen('term statistics');
      try {
        return await read(async () => {
          const total = await table.countRows();
          if (!(await upkeep.ftsIndex())) return { total, counts: terms.map(() => 0) };
          // One term per query, ids only: a term's matches, counted up to the cap.
          const counts = await Promise.all(
            terms.map(async (term) => (await table.query().fullTextSearch(new lancedb.MatchQuery(term, FTS_COLUMN)).select(['id', '_score']).limit(cap).toArrow()).numRows),
          );
          return { total, counts };
        });
      } catch (error) {
        return fail('term statistics', error);
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
          const rows = (await read(() => query.toArray())) as { embed_model: string }[];
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
      if (!(await upkeep.ftsIndex())) return;
      await upkeep.optimize('asked');
    },

    async close() {
      if (closed) return;
      closed = true;
      await upkeep.close();
      table.close();
      db.close();
    },
  };
  return store;
}
