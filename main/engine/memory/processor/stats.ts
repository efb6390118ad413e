/**
 * `sessions:stats`: the memory processor's monitoring report (timings per stage, the analysis
 * cache's hit rate, each component's health) and the chains waiting in the ChainBuffer.
 *
 * A CLI command is one process, so the figures would start at zero each time: the stages, the
 * counters, the cache's counts and the buffer are saved in `.cairn/memory-processor.json` after
 * each analysis and put back when the workspace's processor first starts. The cache's entries
 * are not saved: the analyses themselves are stored with their conversations (workspace-store.ts).
 *
 * @example
 * const state = processorState(stateDir, adapter);
 * await state.ready(); await adapter.analyze(conversation); await state.save();
 * sessionStats(adapter);
 */
import { CauseCounts } from '../../../../shared/llm-cause.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { SessionStats } from '../../../../shared/contracts/api.js';
import { errorMessage } from '../../../../shared/errors.js';
import { ExtractedChain } from '../../../../shared/types/memory.js';
import type { Logger } from '../../ports/logger.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import type { DualTrackIntegrationAdapter } from './integration-adapter.js';

export const PROCESSOR_STATE_FILE = 'memory-processor.json';

/** Summaries shown per buffered conversation. */
const SUMMARIES_SHOWN = 5;

const Count = z.number().int().min(0);
const SavedState = z.object({
  version: z.literal(1),
  stages: z.record(z.string(), z.object({ count: Count, total_ms: z.number(), mean_ms: z.number(), min_ms: z.number(), max_ms: z.number(), last_ms: z.number() })),
  counters: z.record(z.string(), z.number()),
  // Causes saved before they were structured are a { text: count } record: read as texts.
  llm_fallback_causes: CauseCounts.optional(),
  cache: z.object({ hits: Count, misses: Count, evictions: Count, expirations: Count }),
  buffer: z.array(z.object({ conversation_id: z.string(), chains: z.array(ExtractedChain), expires_at: z.number() })),
});

export interface ProcessorState {
  /** Resolves once the saved state (if any) is back in the processor. */
  ready(): Promise<void>;
  save(): Promise<void>;
}

export function processorState(stateDir: string, adapter: DualTrackIntegrationAdapter, logger: Logger): ProcessorState {
  const file = join(stateDir, PROCESSOR_STATE_FILE);
  const { processor } = adapter;
  let loading: Promise<void> | undefined;
  let writes: Promise<unknown> = Promise.resolve();

  const load = async () => {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return; // No analysis yet in this workspace.
    }
    try {
      const saved = SavedState.parse(JSON.parse(text));
      processor.monitor.restore(saved);
      processor.cache.restoreCounts(saved.cache);
      processor.buffer.restore(saved.buffer);
    } catch (error) {
      logger.warn(`Ignored ${file} (${errorMessage(error)}): the memory stats start again from zero`);
    }
  };

  return {
    ready: () => (loading ??= load()),
    async save() {
      const report = processor.monitor.report();
      const { hits, misses, evictions, expirations } = processor.cache.stats();
      const state: z.infer<typeof SavedState> = { version: 1, stages: report.stages, counters: report.counters, llm_fallback_causes: report.llm_fallback_causes, cache: { hits, misses, evictions, expirations }, buffer: processor.buffer.entries() };
      // Serialized, so the last analysis' figures are the ones left on disk.
      const write = writes.then(() => writeFileAtomic(file, JSON.stringify(state) + '\n'));
      writes = write.catch(() => {});
      await write;
    },
  };
}

/** The adapter's status and the buffer's contents, in the shape of the contract. */
export function sessionStats(adapter: DualTrackIntegrationAdapter): SessionStats {
  const status = adapter.status();
  const cache = status.cache ?? adapter.processor.cache.stats();
  const entries = adapter.processor.buffer.entries();
  return {
    generated_at: status.generated_at,
    mode: status.mode,
    degraded: status.degraded,
    runner: status.runner,
    overall: status.overall,
    stages: status.stages,
    cache: { size: cache.size, max_entries: cache.max_entries, ttl_ms: cache.ttl_ms, hits: cache.hits, misses: cache.misses, evictions: cache.evictions, expirations: cache.expirations, hit_rate: cache.hit_rate },
    health: status.health,
    counters: status.counters,
    llm_fallback_causes: status.llm_fallback_causes,
    buffer: {
      ttl_ms: adapter.processor.buffer.ttl,
      chains: entries.reduce((sum, e) => sum + e.chains.length, 0),
      conversations: entries.map((e) => {
        const by_type: Record<string, number> = {};
        for (const chain of e.chains) by_type[chain.chain_type] = (by_type[chain.chain_type] ?? 0) + 1;
        return { conversation_id: e.conversation_id, chains: e.chains.length, by_type, summaries: e.chains.slice(0, SUMMARIES_SHOWN).map((c) => c.summary), expires_at: new Date(e.expires_at).toISOString() };
      }),
    },
  };
}
