/**
 * The two single-pass strategies (docs/SPEC.md#chain-aware-compression): the PRIORITY baseline the
 * seed compares against, and CHAIN_AWARE (the seed's first stage), which ranks by the chain-aware
 * score and may shorten.
 */
import type { ContextBlock } from '../../../shared/types/compress.js';
import { PRIORITY_WEIGHTS, rankDescending } from './scoring.js';
import { MAX_FAILED_FITS, MIN_PIECE_TOKENS, textFitter, type FitOptions, type Piece } from './shorten.js';

/** What a strategy chose: kept pieces by input index, and chain summaries (stage 2 only). */
export interface Selection {
  kept: Map<number, Piece>;
  replaced: ChainSummary[];
  /** Blocks left out whose chain holds a kept block: the pack names them by reference (chain_integrity only). */
  referenced: number[];
}

export interface ChainSummary {
  chainIds: string[];
  /** Input indices of the blocks the summary stands for. */
  blocks: number[];
  source: 'given' | 'extractive';
  parts: Array<{ index: number; piece: Piece }>;
}

/**
 * The traditional compressor of the seed's comparison: whole blocks by priority (then relevance,
 * freshness, input order), each kept if it still fits, none shortened. It knows nothing of
 * chains, which is how it cuts the seed's problem → cause → solution chain.
 */
export function selectByPriority(blocks: readonly ContextBlock[], budget: number, reserved: ReadonlyMap<number, Piece> = new Map()): Selection {
  // Sort keys in typed arrays: the comparator runs ~130k times on 10k blocks.
  const weight = Float64Array.from(blocks, (b) => PRIORITY_WEIGHTS[b.priority]);
  const relevance = Float64Array.from(blocks, (b) => b.relevance_score);
  const freshness = Float64Array.from(blocks, (b) => b.freshness_score);
  const order = Array.from(blocks, (_, i) => i).sort(
    (a, b) => weight[b]! - weight[a]! || relevance[b]! - relevance[a]! || freshness[b]! - freshness[a]! || a - b,
  );
  const kept = new Map<number, Piece>(reserved);
  let remaining = budget;
  for (const i of order) {
    const block = blocks[i] as ContextBlock;
    if (kept.has(i) || block.token_count > remaining) continue;
    kept.set(i, wholePiece(block));
    remaining -= block.token_count;
  }
  return { kept, replaced: [], referenced: [] };
}

export function wholePiece(block: ContextBlock): Piece {
  return { content: block.content, token_count: block.token_count, shortened: false };
}

/**
 * CHAIN_AWARE: blocks by the chain-aware score, greedily; a block that no longer fits whole is
 * shortened to the room left (its leading sentences), as the seed shortens its block 3 to fit.
 */
export function selectChainAware(blocks: readonly ContextBlock[], scores: readonly number[], budget: number, fit: FitOptions = {}, reserved: ReadonlyMap<number, Piece> = new Map()): Selection {
  const kept = new Map<number, Piece>(reserved);
  let remaining = budget;
  let failedFits = 0;
  for (const i of rankDescending(scores)) {
    const block = blocks[i] as ContextBlock;
    if (kept.has(i)) continue;
    let piece: Piece | null = null;
    if (block.token_count <= remaining) piece = wholePiece(block);
    // Most blocks that do not fit meet a full budget: skip those without tokenizing them.
    else if (remaining >= MIN_PIECE_TOKENS && failedFits < MAX_FAILED_FITS) {
      piece = textFitter(block, fit).fit(remaining);
      failedFits = piece ? 0 : failedFits + 1;
    }
    if (!piece) continue;
    kept.set(i, piece);
    remaining -= piece.token_count;
  }
  return { kept, replaced: [], referenced: [] };
}
