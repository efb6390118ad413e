/**
 * Which extractor a memory candidate owes itself to, for the review and `--json`: an LLM (and
 * which) when any chain it cites or any bucket item of its source messages was the model's, else
 * the rules. Kept apart from candidates.ts (what becomes a memory), which it does not change.
 *
 * @example
 * withExtractors(proposeMemoryCandidates(analysis), analysis)[0].candidate.extractor; // { kind: 'llm', model: 'gpt-4o-mini' }
 */
import type { Extractor, SessionAnalysis } from '../../../../shared/types/memory.js';
import { RULES_EXTRACTOR } from '../llm-run.js';
import type { ProposedMemory } from './candidates.js';

export function withExtractors(proposed: ProposedMemory[], analysis: SessionAnalysis): ProposedMemory[] {
  const chains = new Map(analysis.chains.map((c) => [c.chain_id, c.extractor]));
  const byMessage = new Map<string, Extractor>();
  for (const item of Object.values(analysis.buckets).flat()) {
    if (item.extractor?.kind !== 'llm') continue;
    for (const id of item.message_ids) byMessage.set(id, item.extractor);
  }
  return proposed.map((p) => {
    const sources = [...(p.candidate.chain_ids ?? []).map((id) => chains.get(id)), ...p.candidate.message_ids.map((id) => byMessage.get(id))];
    const extractor = sources.find((e) => e?.kind === 'llm') ?? RULES_EXTRACTOR;
    return { ...p, candidate: { ...p.candidate, extractor } };
  });
}
