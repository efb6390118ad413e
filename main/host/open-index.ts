/**
 * Composes the search index the CLI and the engine worker hand to the engine: LanceDB at a
 * folder or object-store URI, with the local embedder, or an OpenAI-compatible one when a
 * model is named. It opens on first use, so commands that never touch the index (ls, tree,
 * cat, stat) never pay for LanceDB. Configuration arrives as plain values: the hosts read env.
 */
import { join } from 'node:path';
import { createSearchIndex, type SearchIndex } from '../engine/index/search-index.js';
import type { EmbeddingModel } from '../engine/ports/embedding-model.js';
import type { EngineIndex } from '../engine/ports/engine-index.js';
import { silentLogger, type Logger } from '../engine/ports/logger.js';
import type { VectorStore } from '../engine/ports/vector-store.js';
import { createLocalEmbedder } from '../adapters/embed/local.js';
import { createOpenAIEmbedder } from '../adapters/embed/openai.js';

export interface IndexConfig {
  /** Where the LanceDB table lives; default `<workspace>/.cairn/index`. May be s3://, gs://, az://. */
  uri?: string;
  /** Passed to LanceDB (object-store credentials, region, endpoint). */
  storageOptions?: Record<string, string>;
  /** Set to use an OpenAI-compatible endpoint; the local embedder otherwise. */
  embed?: { baseURL: string; apiKey: string; model: string; dimensions?: number };
  /** See LanceStoreOptions.idleOptimizeMs: 0 for a short-lived CLI process, which optimizes explicitly. */
  idleOptimizeMs?: number;
  /** See LanceStoreOptions.cleanupOnClose: true for a short-lived CLI process, which has no background to remove replaced versions in. */
  cleanupOnClose?: boolean;
  logger?: Logger;
}

export function defaultIndexUri(workspace: string): string {
  return join(workspace, '.cairn', 'index');
}

async function openEmbedder(config: IndexConfig, logger: Logger): Promise<EmbeddingModel> {
  if (!config.embed) return createLocalEmbedder();
  const embedder = createOpenAIEmbedder({ ...config.embed, logger });
  // The table is created with a fixed vector length, so it must be known before the store opens.
  if (config.embed.dimensions === undefined) await embedder.discoverDimensions();
  return embedder;
}

/** A search index that opens its embedder and LanceDB store on the first call. */
export function lazySearchIndex(workspace: string, config: IndexConfig = {}): EngineIndex & Pick<SearchIndex, 'search' | 'optimize' | 'recordIds' | 'removeRecords'> {
  const logger = config.logger ?? silentLogger;
  let opened: Promise<{ index: SearchIndex; store: VectorStore }> | null = null;
  const open = () =>
    (opened ??= (async () => {
      const embedder = await openEmbedder(config, logger);
      await embedder.warmUp?.();
      // Loaded here, not at the top: a process that never opens the index (cairn ls, tree, cat)
      // never loads LanceDB and Arrow.
      const { openLanceStore } = await import('../adapters/store/lancedb/index.js');
      const store = await openLanceStore({
        uri: config.uri ?? defaultIndexUri(workspace),
        dimensions: embedder.dimensions,
        logger,
        ...(config.idleOptimizeMs !== undefined ? { idleOptimizeMs: config.idleOptimizeMs } : {}),
        ...(config.cleanupOnClose !== undefined ? { cleanupOnClose: config.cleanupOnClose } : {}),
        ...(config.storageOptions ? { storageOptions: config.storageOptions } : {}),
      });
      return { index: createSearchIndex({ embedder, store, logger }), store };
    })());
  return {
    // The engine buffers and journals writes (journaled-index.ts), so these pass straight through.
    async upsert(records) {
      await (await open()).index.upsert(records);
    },
    async removeUnder(uri) {
      await (await open()).index.removeUnder(uri);
    },
    async search(query) {
      return (await open()).index.search(query);
    },
    async optimize() {
      if (opened) await (await opened).index.optimize();
    },
    async recordIds() {
      return (await open()).index.recordIds();
    },
    async removeRecords(ids) {
      await (await open()).index.removeRecords(ids);
    },
    async close() {
      if (opened) await (await opened).store.close();
    },
    async prepare() {
      // A failure here is the same failure the first write will report.
      await open().catch(() => undefined);
    },
  };
}
