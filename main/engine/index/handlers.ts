/**
 * search:query and index:rebuild, spread into the engine's handlers. Without an index (an engine
 * started without one) both answer INDEX_FAILED; a bare ContextIndex only receives records, so
 * search needs one with `search`. Search answers the index's hits and the ranked list rank.ts
 * makes of them (one entry per document).
 */
import { CairnError } from '../../../shared/errors.js';
import type { CommandHandlers } from '../command-handlers.js';
import type { ContextFS } from '../tree/context-fs.js';
import type { EngineIndex } from '../ports/engine-index.js';
import { WEAK_BELOW, documentsOf, rankHits, toContractHit } from './rank.js';
import { rebuildIndex } from './rebuild.js';

export interface IndexHandlerDeps {
  fs: ContextFS;
  index: EngineIndex | null;
  optimizeIndex: () => Promise<void>;
  /** Aborted when the engine stops: a rebuild stops with it. */
  lifetime: AbortSignal;
}

export function indexHandlers(deps: IndexHandlerDeps): Pick<CommandHandlers, 'search:query' | 'index:rebuild'> {
  const { index } = deps;
  return {
    'search:query': async (request, ctx) => {
      if (!index?.search) throw new CairnError('INDEX_FAILED', 'Search is not available: this engine was started without a search index');
      const hits = await index.search({
        text: request.query,
        mode: request.mode,
        k: request.topK,
        ...(request.minScore !== undefined ? { minScore: request.minScore } : {}),
        filter: {
          ...(request.scope ? { scope: request.scope } : {}),
          ...(request.level !== undefined ? { levels: [request.level] } : {}),
          ...(request.uriPrefix ? { uriPrefix: request.uriPrefix } : {}),
        },
        signal: ctx.signal,
      });
      // The raw hits as before, and the same hits merged by document, as a person reads them.
      const weakBelow = WEAK_BELOW[request.mode];
      return { hits: hits.map(toContractHit), ranked: rankHits(await documentsOf(deps.fs, hits), { weakBelow }), weak_below: weakBelow };
    },
    'index:rebuild': async (_request, ctx) => {
      if (!index) throw new CairnError('INDEX_FAILED', 'Reindex is not available: this engine was started without an index');
      const started = Date.now();
      const records = await rebuildIndex(deps.fs, index, AbortSignal.any([ctx.signal, deps.lifetime]));
      await deps.optimizeIndex();
      return { records, ms: Date.now() - started };
    },
  };
}
