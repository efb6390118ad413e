/**
 * Folds the rows just written into the search indexes, so a search right after an ingest or a
 * summary run is fast. A failure costs speed only (the rows are written and found by a slower
 * scan), so it is logged, never thrown.
 */
import type { Logger } from '../ports/logger.js';
import type { EngineIndex } from '../ports/engine-index.js';

export function indexOptimizer(index: EngineIndex | null, logger: Logger): () => Promise<void> {
  return async () => {
    try {
      await index?.optimize?.();
    } catch (error) {
      logger.warn(`Optimizing the index failed: ${String((error as Error)?.message ?? error)}`);
    }
  };
}
