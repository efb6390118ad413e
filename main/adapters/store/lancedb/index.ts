/**
 * The VectorStore port on LanceDB (embedded; a local folder or an object-store URI that LanceDB
 * supports: s3://, gs://, az://). This file is the folder's public face; the parts:
 *
 * - store.ts: opening a store, writes, deletes, reads and searches.
 * - table.ts: loading LanceDB, connecting, creating or checking the table.
 * - arrow-codec.ts: the table's schema and records to and from Arrow.
 * - filters.ts: `where` predicates from filters, every value a quoted literal.
 * - upkeep.ts: when the full-text, scalar and vector indexes are built and folded over new rows,
 *   and when replaced versions are removed from disk.
 * - options.ts: what a store opens with, and the defaults.
 *
 * Decisions worth knowing:
 * - Reads see every commit: the connection uses `readConsistencyInterval: 0` (configurable), so a
 *   handle held for hours still sees what other threads, processes and machines wrote. A default
 *   connection keeps reading the version it opened.
 * - No single writer is assumed: writes are `mergeInsert` on `id` (idempotent), deletes are
 *   predicates, and a commit that loses a race to another writer is retried a bounded number of
 *   times. LanceDB already retries `mergeInsert` conflicts itself; ours covers what it gives up on.
 * - Full-text search runs on an `fts` column that holds the text as analysed by
 *   main/lib/text-analysis (stemmed words, CJK unigrams and bigrams, space separated),
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
 * - Vectors are stored as 16-bit floats (float16.ts): half the bytes of the column and of an
 *   IVF_FLAT index, and a flat search reads half as much (about 3× faster than over 32-bit ones
 *   at 100k × 512). A table of 32-bit vectors made before is converted when it is opened (table.ts).
 *   New tables hold them as a list of at most one vector per row (LanceDB's multivector type), so
 *   a record without a vector (a resource file's L0 and L1, see `hasOwnVector`) costs no vector
 *   bytes; tables made with one fixed-size vector per row keep it, and every record they hold has one.
 * - Vector search uses cosine distance, exact (flat) below `annMinRows` rows with a vector (60k by default: a flat
 *   search over 60k 16-bit vectors costs about what one over 20k 32-bit ones did, the default
 *   before; it grows linearly). The ANN index has a cost on disk beyond its copy of the vectors:
 *   LanceDB 0.37 rewrites it on every `table.optimize()`, even with nothing new to fold in, so a
 *   table with one keeps the version that rewrite replaced (and its copy) until the next
 *   optimize, which makes another (bench/RESULTS.md, issue 20): so the upkeep calls LanceDB's
 *   optimize only when there are rows to fold in or versions to remove. Past it, `optimize()` (asked
 *   for, or once writes pause; never a write itself) trains an ANN index (IVF_FLAT by default,
 *   see options.ts), and queries probe at least `nprobes` partitions and re-rank
 *   `refineFactor × k` candidates by exact cosine, so scores stay exact. Rows written since are searched flat next to it until the next optimize
 *   folds them in; after the table doubles, the index is trained again.
 * - Scalar indexes (BTREE on id, uri, parent_uri; BITMAP on level, scope, context_type, category,
 *   embed_model) from `scalarIndexMinRows` rows: filters, `get` and `listByParent` then read
 *   index pages instead of scanning columns. Any optimization may create them (they take
 *   milliseconds); `table.optimize()` keeps every index current.
 * - Every commit (a write, a delete, a compaction, an index update) is a new version of the table,
 *   and LanceDB keeps the files of every old one until told to remove them: left alone, the git
 *   docs' index grew from 10 MB of live rows to 150 MB over three reindexes (issue 20). Each
 *   optimize compacts until nothing is left to merge, then removes the versions that were
 *   replaced at least `keepReplacedMs` ago (2 s plus the read consistency interval: no query
 *   reads one version longer), and the empty index folders LanceDB leaves behind. What is too
 *   young is removed later, in the background (a timer, once writes have paused for 3 ×
 *   `keepReplacedMs`), or by
 *   `close()` with `cleanupOnClose` (the CLI, which has no later). A read or a write that still
 *   meets a removed file (a handle that kept a version longer) moves to the latest version and
 *   runs again. Files of commits in progress are no version's, and LanceDB keeps them 7 days.
 * - The native module loads with the first `openLanceStore`, not with this folder.
 *
 * @example
 * const store = await openLanceStore({ uri: join(workspace, 'index'), dimensions: embedder.dimensions });
 * await store.upsert(records);
 * const hits = await store.textSearch({ query: '快速入门', k: 5 });
 * await store.close();
 */
export { openLanceStore } from './store.js';
export type { AnnKind, LanceStoreOptions } from './options.js';
export { filterToSql, sqlString, subtreePredicate } from './filters.js';
