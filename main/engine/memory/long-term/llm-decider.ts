/**
 * The optional LLM path of the dedup decision: given a candidate and the most similar memories
 * of its category, the model answers add, update (with the merged text), delete (the candidate
 * makes a memory wrong: it is removed, its text kept in history, and the candidate added) or
 * none. Whatever it answers is checked; an answer naming a memory it was not shown, or a
 * failed call, falls back to the rules (dedup.ts), so the model can refine a decision but
 * never lose a memory unrecorded.
 */
import { z } from 'zod';
import { errorMessage } from '../../../../shared/errors.js';
import type { LongTermMemory } from '../../../../shared/types/memory.js';
import type { LanguageModel } from '../../ports/language-model.js';
import type { Logger } from '../../ports/logger.js';
import { decide, merge, similarity, union, type Decision } from './dedup.js';
import type { MemoryCandidate } from './types.js';

/** Memories shown to the model: the closest few, and only those with something in common. */
const SHOWN = 5;
const SHOWN_MIN_SIMILARITY = 0.15;

export const LlmMemoryDecision = z.object({
  decision: z.enum(['add', 'update', 'delete', 'none']),
  /** The memory updated, deleted or already holding the fact. */
  target_id: z.string().optional(),
  /** For update: the memory's new title and content, every fact of both kept. */
  title: z.string().optional(),
  content: z.string().optional(),
  reason: z.string(),
});
export type LlmMemoryDecision = z.infer<typeof LlmMemoryDecision>;

export type LlmDecision = Decision | { op: 'delete'; target: LongTermMemory; score: number; reason: string };

const SYSTEM = [
  'You keep a person\'s long-term memories free of duplicates without losing any fact.',
  'Given a new memory and existing memories of the same category, answer one JSON object:',
  '- "none" when an existing memory already states everything the new one says (target_id: that memory);',
  '- "update" when the new memory adds to or corrects an existing one (target_id, and title and content',
  '  that keep every fact of both; when the new one replaces an old value, state the new value);',
  '- "delete" when the new memory shows an existing one is wrong or obsolete (target_id: the obsolete one);',
  '- "add" otherwise.',
  'Give a short reason.',
].join('\n');

export async function decideWithLlm(
  llm: LanguageModel,
  candidate: MemoryCandidate,
  memories: LongTermMemory[],
  options: { logger: Logger; signal?: AbortSignal },
): Promise<LlmDecision> {
  const rules = decide(candidate, memories);
  const shown = memories
    .filter((m) => m.category === candidate.category)
    .map((m) => ({ memory: m, score: similarity(candidate, m) }))
    .filter((s) => s.score >= SHOWN_MIN_SIMILARITY)
    .sort((a, b) => b.score - a.score)
    .slice(0, SHOWN);
  if (shown.length === 0) return rules;
  try {
    const { value } = await llm.completeJson({
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
    });
    if (value.decision === 'add') return { op: 'add', reason: `llm: ${value.reason}` };
    const target = shown.find((s) => s.memory.id === value.target_id);
    if (!target) {
      options.logger.warn(`Memory dedup: the model named ${JSON.stringify(value.target_id)}, which it was not shown; using the rules`);
      return rules;
    }
    const reason = `llm: ${value.reason}`;
    if (value.decision === 'none') return { op: 'none', target: target.memory, score: target.score, reason };
    if (value.decision === 'delete') return { op: 'delete', target: target.memory, score: target.score, reason };
    const merged = merge(target.memory, candidate);
    return {
      op: 'update',
      target: target.memory,
      score: target.score,
      patch: {
        title: value.title?.trim() || merged.title,
        content: value.content?.trim() || merged.content,
        keywords: union(target.memory.keywords, candidate.keywords),
      },
      reason,
    };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    options.logger.warn(`Memory dedup: the model failed (${errorMessage(error)}); using the rules`);
    return rules;
  }
}
