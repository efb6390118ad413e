/**
 * `compressBlocks`: one entry point for the three strategies, and the result every caller
 * (CLI, web host, the context pack) receives.
 */
import { CairnError } from '../../../shared/errors.js';
import type { CompressionResult, CompressionStrategy, ContextBlock, DroppedBlock, KeptBlock, ReplacedChain } from '../../../shared/types/compress.js';
import { resolveBudget, type BudgetOptions } from './blocks.js';
import { chainMembers, chainReports, isIntact, type BlockFate } from './chains.js';
import { selectChainIntegrity } from './integrity.js';
import { reserveFirst, type Reservation } from './reserve.js';
import { chainAwareScore } from './scoring.js';
import type { FitOptions, Piece } from './shorten.js';
import { searchTerms } from '../../lib/text-analysis.js';
import { selectByPriority, selectChainAware, type Selection } from './strategies.js';

export interface CompressOptions extends BudgetOptions, FitOptions {
  /** Default chain_integrity, the strategy that keeps chains whole. */
  strategy?: CompressionStrategy;
  /**
   * Groups of block indices kept before the strategy runs, in order (a context pack's top hits,
   * reserve.ts). Indices outside the input are ignored.
   */
  reserve?: readonly (readonly number[])[];
  /** The question the blocks are packed for: a shortened block keeps the sentences that match it (shorten.ts). */
  query?: string;
}

/**
 * Keeps what fits a token budget. The output never exceeds the budget, keeps the input order,
 * and is the same for the same input (ties go to the earlier block).
 *
 * @example
 * const result = compressBlocks(blocks, { strategy: 'chain_aware', budget: 250 });
 * result.kept.map((b) => b.id); // ['problem', 'cause', 'solution'] (the cause shortened to fit)
 * result.intact_chains; // ['chain_001']
 */
export function compressBlocks(blocks: readonly ContextBlock[], options: CompressOptions = {}): CompressionResult {
  const strategy = options.strategy ?? 'chain_integrity';
  const originalTokens = blocks.reduce((sum, b) => sum + b.token_count, 0);
  const budget = resolveBudget(options, originalTokens);
  const scores = blocks.map(chainAwareScore);
  const members = chainMembers(blocks);
  const fit: FitOptions = { cutSentences: options.cutSentences ?? true, ...(options.query ? { queryTerms: new Set(searchTerms(options.query)) } : {}) };
  const reservation = reserveFirst(blocks, options.reserve ?? [], budget, fit);
  const selection = select(strategy, blocks, scores, reservation, members, fit);

  const fates: BlockFate[] = blocks.map((_, i) => {
    const piece = selection.kept.get(i);
    return piece ? (piece.shortened ? 'shortened' : 'whole') : 'dropped';
  });
  for (const summary of selection.replaced) for (const i of summary.blocks) fates[i] = 'replaced';
  for (const i of selection.referenced) fates[i] = 'referenced';

  // One pass in input order builds both lists (no sort; this runs on 10k blocks in a few ms).
  const kept: KeptBlock[] = [];
  const dropped: DroppedBlock[] = [];
  for (let index = 0; index < blocks.length; index += 1) {
    const block = blocks[index] as ContextBlock;
    const score = scores[index] as number;
    const piece = selection.kept.get(index);
    if (piece) kept.push(keptBlock(block, piece, index, score));
    else if (fates[index] === 'dropped' || fates[index] === 'referenced') {
      const dropping = { id: block.id, index, source: block.source, priority: block.priority, token_count: block.token_count, score, chain_links: block.chain_links };
      // A referenced block is named in the pack: where its text is goes with it.
      dropped.push(fates[index] === 'dropped' ? dropping : { ...dropping, referenced: true, ...(block.provenance ? { provenance: block.provenance } : {}) });
    }
  }
  const replaced: ReplacedChain[] = selection.replaced
    .map((summary) => ({
      chain_ids: summary.chainIds,
      block_ids: summary.blocks.map((i) => (blocks[i] as ContextBlock).id),
      index: summary.blocks[0] as number,
      summary_source: summary.source,
      content: summary.parts.map((p) => p.piece.content).join('\n\n'),
      token_count: summary.parts.reduce((sum, p) => sum + p.piece.token_count, 0),
      original_token_count: summary.blocks.reduce((sum, i) => sum + (blocks[i] as ContextBlock).token_count, 0),
      parts: summary.parts.map((p) => {
        const block = blocks[p.index] as ContextBlock;
        return { block_id: block.id, ...p.piece, original_token_count: block.token_count, ...(block.provenance ? { provenance: block.provenance } : {}) };
      }),
    }))
    .sort((a, b) => a.index - b.index);

  const compressedTokens = kept.reduce((sum, b) => sum + b.token_count, 0) + replaced.reduce((sum, r) => sum + r.token_count, 0);
  // The strategies guarantee this; checked here so a future bug fails loudly instead of overflowing an agent's context.
  if (compressedTokens > budget) throw new CairnError('INTERNAL', `compression kept ${compressedTokens} tokens, over the budget of ${budget}`);

  const chains = chainReports(blocks, members, fates);
  return {
    strategy,
    budget,
    original_tokens: originalTokens,
    compressed_tokens: compressedTokens,
    kept,
    dropped,
    replaced,
    chains,
    intact_chains: chains.filter((c) => isIntact(c.status)).map((c) => c.id),
    broken_chains: chains.filter((c) => !isIntact(c.status)).map((c) => c.id),
  };
}

function keptBlock(block: ContextBlock, piece: Piece, index: number, score: number): KeptBlock {
  const out: KeptBlock = {
    id: block.id,
    source: block.source,
    priority: block.priority,
    content: piece.content,
    token_count: piece.token_count,
    chain_links: block.chain_links,
    chain_types: block.chain_types,
    relevance_score: block.relevance_score,
    freshness_score: block.freshness_score,
    index,
    score,
    shortened: piece.shortened,
    original_token_count: block.token_count,
  };
  if (block.provenance) out.provenance = block.provenance;
  if (block.summary !== undefined) out.summary = block.summary;
  return out;
}

function select(strategy: CompressionStrategy, blocks: readonly ContextBlock[], scores: number[], reservation: Reservation, members: Map<string, number[]>, fit: FitOptions): Selection {
  const { kept: reserved, remaining } = reservation;
  switch (strategy) {
    case 'priority':
      return selectByPriority(blocks, remaining, reserved);
    case 'chain_aware':
      return selectChainAware(blocks, scores, remaining, fit, reserved);
    case 'chain_integrity':
      return selectChainIntegrity(blocks, scores, remaining, members, fit, reserved);
  }
}
