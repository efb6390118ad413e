/**
 * The summary that replaces a chain too large for the room left (stage 2). Offline and
 * deterministic: the blocks' own `summary` fields when every block has one and they fit,
 * otherwise an extract of each block's leading sentences, every block getting room in
 * proportion to its size so that problem, cause and solution all keep a voice.
 */
import type { ContextBlock } from '../../../shared/types/compress.js';
import { MAX_FAILED_FITS, MIN_PIECE_TOKENS, textFitter, type FitOptions, type Piece, type TextFitter } from './shorten.js';
import type { ChainSummary } from './strategies.js';

/** Returns null when not even one block can contribute MIN_PIECE_TOKENS within `max`. */
export function summarizeChain(blocks: readonly ContextBlock[], indices: readonly number[], chainIds: string[], max: number, fit: FitOptions = {}): ChainSummary | null {
  if (max < MIN_PIECE_TOKENS) return null;
  const members = indices.map((index) => ({ index, block: blocks[index] as ContextBlock }));
  const fitters = members.map((m) => textFitter(m.block, fit));

  if (members.every((m) => m.block.summary)) {
    const parts = members.map((m, k) => {
      const content = m.block.summary as string;
      return { index: m.index, piece: { content, token_count: (fitters[k] as TextFitter).units(content), shortened: false } };
    });
    if (parts.reduce((sum, p) => sum + p.piece.token_count, 0) <= max) return { chainIds, blocks: [...indices], source: 'given', parts };
  }

  const total = members.reduce((sum, m) => sum + m.block.token_count, 0);
  const pieces: Array<Piece | null> = members.map((m, k) => {
    const share = total === 0 ? 0 : Math.floor((max * m.block.token_count) / total);
    return (fitters[k] as TextFitter).fit(share);
  });
  // Shares are rounded down and sentences rarely end exactly on them: offer what is left to
  // each block in turn, in input order, so the room is used without breaking the budget.
  let left = max - pieces.reduce((sum, p) => sum + (p?.token_count ?? 0), 0);
  let failed = 0;
  for (let k = 0; k < members.length && left >= 1 && failed < MAX_FAILED_FITS; k += 1) {
    const current = pieces[k]?.token_count ?? 0;
    if (current + left < MIN_PIECE_TOKENS) continue;
    const longer = (fitters[k] as TextFitter).fit(current + left);
    if (longer && longer.token_count > current) {
      pieces[k] = longer;
      left -= longer.token_count - current;
      failed = 0;
    } else failed += 1;
  }
  const parts = members.flatMap((m, k) => {
    const piece = pieces[k];
    return piece && piece.content.trim().length > 0 ? [{ index: m.index, piece }] : [];
  });
  return parts.length > 0 ? { chainIds, blocks: [...indices], source: 'extractive', parts } : null;
}
