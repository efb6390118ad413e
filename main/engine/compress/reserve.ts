/**
 * Room kept for the blocks most likely to answer, before any strategy spends the budget (issue
 * 19, item 3). A context pack names its top-ranked hits (groups of one block each: reserving
 * the messages next to them too crowded out the chains that answer multi-hop questions); those
 * groups are kept first, in order, so a low hit whose chain scores high under the chain-aware score (a chain lifts a block about
 * two priority levels, scoring.ts) can no longer crowd them out. The strategy then fills what is
 * left; chain_integrity keeps a chain that holds a reserved block whole when the rest of it fits,
 * and otherwise names its other steps by reference (integrity.ts).
 */
import type { ContextBlock } from '../../../shared/types/compress.js';
import { textFitter, type FitOptions, type Piece } from './shorten.js';

/** What the reservation kept, by input index, and the room it left. */
export interface Reservation {
  kept: Map<number, Piece>;
  remaining: number;
}

/** Groups of block ids (a pack's `reserve`) as indices into `blocks`; ids not among them are left out. */
export function reserveIndices(blocks: readonly ContextBlock[], groups: readonly (readonly string[])[]): number[][] {
  const at = new Map(blocks.map((b, i) => [b.id, i]));
  return groups.map((group) => group.flatMap((id) => (at.has(id) ? [at.get(id) as number] : [])));
}

/**
 * The share of the budget the reservation may spend; the rest is the strategy's. With every hit
 * above the floor reserved, the hits alone can fill a small pack, and a chain among the blocks
 * then finds no room even for its summary and is lost whole (a 600-token pack of a debugging
 * conversation, test/engine/mcp.test.ts). The top hit may take more: it goes in whenever it fits
 * the budget alone.
 */
export const RESERVED_SHARE = 0.75;

/**
 * Keeps each block of each group, in order, whole when it fits the room left and otherwise its
 * leading sentences (whole ones, when `fit.cutSentences` is false), within RESERVED_SHARE of the
 * budget. A block that fits in neither way is skipped and the next one tried, so one long
 * neighbour does not cost the next hit. The first block of the first group therefore always goes
 * in when it fits the budget alone.
 */
export function reserveFirst(blocks: readonly ContextBlock[], groups: readonly (readonly number[])[], budget: number, fit: FitOptions = {}): Reservation {
  const kept = new Map<number, Piece>();
  const cap = Math.floor(budget * RESERVED_SHARE);
  let spent = 0;
  for (const group of groups) {
    for (const i of group) {
      const block = blocks[i];
      if (!block || kept.has(i)) continue;
      const piece = textFitter(block, fit).fit(kept.size === 0 ? budget : cap - spent);
      if (!piece) continue;
      kept.set(i, piece);
      spent += piece.token_count;
    }
  }
  return { kept, remaining: budget - spent };
}
