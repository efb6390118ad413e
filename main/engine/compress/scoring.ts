/**
 * The seed's CHAIN_AWARE score (docs/SPEC.md#chain-aware-compression, "链感知评分"):
 *   PRIORITY_WEIGHTS[priority]·10 + Σ CHAIN_TYPE_WEIGHTS[type] + 15·len(chain_links)
 *   + 10·relevance + 10·freshness
 */
import type { CompressionChainType, ContextBlock, ContextPriority } from '../../../shared/types/compress.js';

/**
 * The seed leaves these values open. Adjacent levels are 3 apart (30 points), less than one
 * causal link (40 + 15), so belonging to a chain lifts a block about two levels: the seed's
 * intent that chain information survives first. CRITICAL (100) still beats any block outside
 * a chain (at most 70 + 20) and a LOW block in one causal chain (at most 10 + 55 + 20).
 */
export const PRIORITY_WEIGHTS: Readonly<Record<ContextPriority, number>> = { CRITICAL: 10, HIGH: 7, MEDIUM: 4, LOW: 1 };

export const CHAIN_TYPE_WEIGHTS: Readonly<Record<CompressionChainType, number>> = {
  causal: 40,
  logic: 35,
  operation: 35,
  narrative: 30,
  time: 25,
};

export const CHAIN_LINK_BONUS = 15;

export function chainAwareScore(block: ContextBlock): number {
  let score = PRIORITY_WEIGHTS[block.priority] * 10;
  // Summed as listed, as the seed does: a block that lists a type twice counts it twice.
  for (const type of block.chain_types) score += CHAIN_TYPE_WEIGHTS[type];
  score += CHAIN_LINK_BONUS * block.chain_links.length;
  score += 10 * block.relevance_score + 10 * block.freshness_score;
  return score;
}

/** Indices sorted by `key` descending; equal keys keep input order, so the output is deterministic. */
export function rankDescending(keys: readonly number[]): number[] {
  const key = Float64Array.from(keys);
  return Array.from(keys, (_, i) => i).sort((a, b) => key[b]! - key[a]! || a - b);
}
