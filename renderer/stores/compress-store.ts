/**
 * The compression view: a query, a token budget and a strategy make a context pack
 * (`context:pack`, kept whole for Copy and Save); its blocks are then compressed once more with
 * `compress:run` at the budget the pack's text left them, whole sentences only and its top hits
 * first (its `reserve`) as the pack does,
 * which returns the before/after texts the diff editor shows and the same kept/dropped/summarized
 * report.
 *
 * Only the latest run counts: a response for an older run is dropped.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { CompressionResult, CompressionStrategy, ContextBlock } from '../../shared/types/compress';
import type { CairnClient } from '../api/client';
import type { CommandResponse } from '../../shared/contracts/api';

export type ContextPack = CommandResponse<'context:pack'>;

export const STRATEGIES = ['chain_integrity', 'chain_aware', 'priority'] as const satisfies readonly CompressionStrategy[];

export interface CompressState {
  query: string;
  budget: number;
  strategy: CompressionStrategy;
  status: 'idle' | 'running' | 'done' | 'failed';
  error: string | null;
  blocks: ContextBlock[];
  /** The pack as `cairn context --json` gives it: its Markdown is what Copy and Save hand out. */
  pack: ContextPack | null;
  result: CompressionResult | null;
  before: string;
  after: string;
  /** The query the result answers. */
  ran: string | null;
  setQuery(query: string): void;
  setBudget(budget: number): void;
  setStrategy(strategy: CompressionStrategy): void;
  run(): Promise<void>;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

export type BlockFate = 'kept' | 'shortened' | 'summarized' | 'dropped';

/** What happened to each input block, in input order. */
export function blockFates(blocks: readonly ContextBlock[], result: CompressionResult): { block: ContextBlock; fate: BlockFate; tokens: number }[] {
  const kept = new Map(result.kept.map((k) => [k.id, k]));
  const summarized = new Set(result.replaced.flatMap((r) => r.block_ids));
  return blocks.map((block) => {
    const k = kept.get(block.id);
    if (k) return { block, fate: k.shortened ? 'shortened' : 'kept', tokens: k.token_count };
    if (summarized.has(block.id)) return { block, fate: 'summarized', tokens: 0 };
    return { block, fate: 'dropped', tokens: 0 };
  });
}

export function createCompressStore(client: Pick<CairnClient, 'call'>): StoreApi<CompressState> {
  let seq = 0;
  return createStore<CompressState>()((set, get) => ({
    query: '',
    budget: 800,
    strategy: 'chain_integrity',
    status: 'idle',
    error: null,
    blocks: [],
    pack: null,
    result: null,
    before: '',
    after: '',
    ran: null,

    setQuery: (query) => set({ query }),
    setBudget: (budget) => set({ budget: Number.isFinite(budget) ? Math.max(1, Math.min(1_000_000, Math.round(budget))) : get().budget }),
    setStrategy: (strategy) => set({ strategy }),

    async run() {
      const query = get().query.trim();
      if (!query) return;
      const { budget, strategy } = get();
      const mine = ++seq;
      set({ status: 'running', error: null });
      try {
        const pack = await client.call('context:pack', { query, budget, strategy });
        if (mine !== seq) return;
        if (pack.blocks.length === 0) {
          set({ status: 'done', blocks: [], pack, result: pack.result, before: '', after: '', ran: query });
          return;
        }
        const compressed = await client.call('compress:run', {
          blocks: pack.blocks,
          strategy,
          budget: pack.result.budget,
          whole_sentences: true,
          ...(pack.reserve?.length ? { reserve: pack.reserve } : {}),
        });
        if (mine !== seq) return;
        set({ status: 'done', blocks: pack.blocks, pack, result: compressed.result, before: compressed.before, after: compressed.after, ran: query });
      } catch (error) {
        if (mine !== seq) return;
        set({ status: 'failed', error: message(error) });
      }
    },
  }));
}
