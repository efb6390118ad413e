/**
 * The optional LLM path of the dedup decision: given a candidate and the most similar memories
 * of its category, the model answers add, update (with the merged text), delete (the candidate
 * makes a memory wrong: it is removed, its text kept in history, and the candidate added) or
 * none (the shape: docs/ARCHITECTURE.md#the-llm-in-the-memory-engine). Whatever it answers is
 * checked; an answer naming a memory it was not shown, an update without its text, or a failed
 * call (an HTTP error, a timeout, the wrong shape after the one retry, the token budget) falls
 * back to the rules (dedup.ts) for that candidate, the cause counted in the run (llm-run.ts), so
 * the model can refine a decision but never lose a memory unrecorded.
 */
import { z } from 'zod';
import type { ChangeCause } from '../../../../shared/memory-change-cause.js';
import type { LongTermMemory } from '../../../../shared/types/memory.js';
import { isCancelled, unusableAnswer, type MemoryLlm } from '../llm-run.js';
import { decide, merge, similarity, union, type Decision } from './dedup.js';
import type { MemoryCandidate } from './types.js';

/** Memories shown to the model: the closest few, and only those with something in common. */
const SHOWN = 5;
const SHOWN_MIN_SIMILARITY = 0.15;

/** Strict: every field required (null where it does not apply), no other keys. */
export const LlmMemoryDecision = z.strictObject({
  decision: z.enum(['add', 'update', 'delete', 'none']),
  /** The memory updated, deleted or already holding the fact. */
  target_id: z.string().nullable(),
  /** For update: the memory's new title and content, every fact of both kept. */
  title: z.string().nullable(),
  content: z.string().nullable(),
  reason: z.string(),
});
export type LlmMemoryDecision = z.infer<typeof LlmMemoryDecision>;

export type LlmDecision = Decision | { op: 'delete'; target: LongTermMemory; score: number; cause: ChangeCause };

const SYSTEM = [
  'You keep a person\'s long-term memories free of duplicates without losing any fact.',
  'Given a new memory and existing memories of the same category, answer one JSON object:',
  '- "none" when an existing memory already states everything the new one says (target_id: that memory);',
  '- "update" when the new memory adds to or corrects an existing one (target_id, and title and content',
  '  that keep every fact of both; when the new one replaces an old value, state the new value);',
  '- "delete" when the new memory shows an existing one is wrong or obsolete (target_id: the obsolete one);',
  '- "add" otherwise.',
  'target_id, title and content are null where they do not apply. Give a short reason.',
].join('\n');

export async function decideWithLlm(llm: MemoryLlm, candidate: MemoryCandidate, memories: LongTermMemory[], options: { signal?: AbortSignal | undefined } = {}): Promise<LlmDecision> {
  const rules = decide(candidate, memories);
  const shown = memories
    .filter((m) => m.category === candidate.category)
    .map((m) => ({ memory: m, score: similarity(candidate, m) }))
    .filter((s) => s.score >= SHOWN_MIN_SIMILARITY)
    .sort((a, b) => b.score - a.score)
    .slice(0, SHOWN);
  if (shown.length === 0) return rules;
  let value: LlmMemoryDecision;
  try {
    ({ value } = await llm.model.completeJson({
      schema: LlmMemoryDecision,
      schemaName: 'memory_decision',
      temperature: 0,
      signal: options.signal,
      messages: [
        { role: 'system', content: SYSTEM },
        {
          role: 'user',
          content: JSON.stringify({
            new_memory: { title: candidate.title, content: candidate.content, keywords: candidate.keywords },
            existing: shown.map(({ memory }) => ({ id: memory.id, title: memory.title, content: memory.content })),
          }),
        },
      ],
    }));
  } catch (error) {
    if (isCancelled(error, options.signal)) throw error;
    llm.fellBack('dedup', error);
    return rules;
  }
  const cause: ChangeCause = { code: 'llm', model: llm.model.modelId, detail: value.reason };
  if (value.decision === 'add') return answered(llm, { op: 'add', cause });
  const target = shown.find((s) => s.memory.id === value.target_id);
  if (!target) {
    llm.fellBack('dedup', unusableAnswer('a dedup decision naming a memory it was not shown'));
    return rules;
  }
  if (value.decision === 'none') return answered(llm, { op: 'none', target: target.memory, score: target.score, cause });
  if (value.decision === 'delete') return answered(llm, { op: 'delete', target: target.memory, score: target.score, cause });
  const merged = merge(target.memory, candidate);
  return answered(llm, {
    op: 'update',
    target: target.memory,
    score: target.score,
    patch: {
      title: value.title?.trim() || merged.title,
      content: value.content?.trim() || merged.content,
      keywords: union(target.memory.keywords, candidate.keywords),
    },
    cause,
  });
}

function answered(llm: MemoryLlm, decision: LlmDecision): LlmDecision {
  llm.answered('dedup');
  return decision;
}
