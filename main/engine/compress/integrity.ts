/**
 * CHAIN_INTEGRITY, the seed's stage 2 (docs/SPEC.md#chain-aware-compression): blocks that share a
 * chain are kept or dropped together, and a chain that cannot fit whole is replaced by its summary
 * (see chain-summary.ts).
 *
 * Blocks reserved before it runs (a pack's top hits, reserve.ts) are already kept: a chain that
 * holds one is kept whole when the rest of it fits the room left, and otherwise its other steps
 * are only named by reference (`referenced`), never summarized or shortened around the reserved
 * block, so no chain is cut and the reserved blocks keep their room.
 *
 * A lone block below HIGH that does not fit whole is shortened only after the pass, into the
 * room the blocks that fit whole left: cut at once, a weak page filled a pack's rest, ahead of
 * the short replies next to its top hits (`npm run eval:packs`, bench/RESULTS.md, session 15).
 */
import type { ContextBlock, ContextPriority } from '../../../shared/types/compress.js';
import { chainMembers, chainUnits } from './chains.js';
import { summarizeChain } from './chain-summary.js';
import { rankDescending } from './scoring.js';
import { MAX_FAILED_FITS, MIN_PIECE_TOKENS, textFitter, type FitOptions, type Piece } from './shorten.js';
import { wholePiece, type ChainSummary, type Selection } from './strategies.js';

/** Blocks this important are shortened in their turn: a top hit's excerpt is worth more than the short blocks after it. */
const SHORTENED_AT_ONCE: ReadonlySet<ContextPriority> = new Set(['CRITICAL', 'HIGH']);

export function selectChainIntegrity(
  blocks: readonly ContextBlock[],
  scores: readonly number[],
  budget: number,
  members: Map<string, number[]> = chainMembers(blocks),
  fit: FitOptions = {},
  reserved: ReadonlyMap<number, Piece> = new Map(),
): Selection {
  const units = chainUnits(blocks, members);
  // A chain is as important as its most important block; ties go to the unit that starts first
  // (units come out of chainUnits in order of their first block).
  const unitScores = units.map((unit) => {
    let best = -Infinity;
    for (const i of unit.blocks) best = Math.max(best, scores[i] as number);
    return best;
  });
  const kept = new Map<number, Piece>(reserved);
  const replaced: ChainSummary[] = [];
  const referenced: number[] = [];
  let remaining = budget;
  let failedFits = 0;
  const shorten: number[] = [];
  for (const u of rankDescending(unitScores)) {
    const unit = units[u] as (typeof units)[number];
    const rest = reserved.size > 0 ? unit.blocks.filter((i) => !reserved.has(i)) : unit.blocks;
    let total = 0;
    for (const i of rest) total += (blocks[i] as ContextBlock).token_count;
    if (rest.length < unit.blocks.length) {
      // The unit holds a reserved block: the rest of its chains whole, or named by reference.
      if (total <= remaining) {
        for (const i of rest) kept.set(i, wholePiece(blocks[i] as ContextBlock));
        remaining -= total;
      } else referenced.push(...rest);
    } else if (total <= remaining) {
      for (const i of unit.blocks) kept.set(i, wholePiece(blocks[i] as ContextBlock));
      remaining -= total;
    } else if (remaining < MIN_PIECE_TOKENS || failedFits >= MAX_FAILED_FITS) {
      continue;
    } else if (unit.blocks.length === 1) {
      // One block (alone, or the only block of its chain here): shortening it cuts no chain. A
      // block below HIGH is shortened after the blocks that fit whole, so that one long page
      // cut to fill the room does not leave out the short messages ranked after it.
      const i = unit.blocks[0] as number;
      if (!SHORTENED_AT_ONCE.has((blocks[i] as ContextBlock).priority)) shorten.push(i);
      else {
        const piece = textFitter(blocks[i] as ContextBlock, fit).fit(remaining);
        failedFits = piece ? 0 : failedFits + 1;
        if (piece) {
          kept.set(i, piece);
          remaining -= piece.token_count;
        }
      }
    } else {
      const summary = summarizeChain(blocks, unit.blocks, unit.chainIds, remaining, fit);
      failedFits = summary ? 0 : failedFits + 1;
      if (summary) {
        replaced.push(summary);
        remaining -= summary.parts.reduce((sum, p) => sum + p.piece.token_count, 0);
      }
    }
  }
  for (const i of shorten) {
    if (remaining < MIN_PIECE_TOKENS || failedFits >= MAX_FAILED_FITS) break;
    const piece = textFitter(blocks[i] as ContextBlock, fit).fit(remaining);
    failedFits = piece ? 0 : failedFits + 1;
    if (piece) {
      kept.set(i, piece);
      remaining -= piece.token_count;
    }
  }
  return { kept, replaced, referenced };
}
