/**
 * Bucket classification by a language model, in batches. Each item the model does not answer
 * for (a failed call, a bad answer, a missing index) keeps its rule classification, and its
 * reason says why; a cancelled run stops instead of falling back.
 */
import { z } from 'zod';
import { CairnError, errorMessage } from '../../../../shared/errors.js';
import { BucketType } from '../../../../shared/types/memory.js';
import type { LanguageModel } from '../../ports/language-model.js';
import type { DraftItem } from './items.js';

export const BATCH_SIZE = 20;
const MAX_ITEM_CHARS = 600;

export const BucketAnswer = z.object({
  items: z.array(
    z.object({
      index: z.number().int(),
      bucket: BucketType,
      confidence: z.number().min(0).max(1).optional(),
      reason: z.string().optional(),
    }),
  ),
});

const SYSTEM = [
  'You classify the messages of a conversation into semantic buckets for a memory system.',
  'TASK_CONTEXT: the task or problem, its symptoms and findings, requirements, constraints, plans and next steps.',
  'USER_INTENT: what the user wants or prefers: goals, wishes, likes and dislikes.',
  'DECISION_CONTEXT: a choice made or recommended among options, and the reasons for it.',
  'KNOWLEDGE_GAP: questions and unknowns, and explanations that answer them.',
  'EMOTIONAL_TRACE: how the user feels: stress, worry, frustration, relief, joy, thanks.',
  'Give each message the one bucket it is mostly for. Messages may be in any language.',
  'Answer with JSON only: {"items": [{"index": number, "bucket": string, "confidence": number (0..1), "reason": string (a few words)}]}.',
].join('\n');

export interface LlmStats {
  calls: number;
  llmItems: number;
  fallbackItems: number;
}

/** Replaces the rule buckets of `items` (in place) with the model's, batch by batch. */
export async function classifyWithModel(items: DraftItem[], model: LanguageModel, signal?: AbortSignal): Promise<LlmStats> {
  const stats: LlmStats = { calls: 0, llmItems: 0, fallbackItems: 0 };
  for (let start = 0; start < items.length; start += BATCH_SIZE) {
    if (signal?.aborted) throw new CairnError('CANCELLED', 'bucket classification was cancelled');
    const batch = items.slice(start, start + BATCH_SIZE);
    const listing = batch.map((item, k) => `[${k}] ${item.role}: ${item.text.replace(/\s+/g, ' ').slice(0, MAX_ITEM_CHARS)}`).join('\n');
    let answer: z.infer<typeof BucketAnswer> | undefined;
    let failure = '';
    try {
      stats.calls += 1;
      const result = await model.completeJson({
        messages: [
          { role: 'system', content: SYSTEM },
          { role: 'user', content: `Classify these ${batch.length} messages:\n${listing}` },
        ],
        schema: BucketAnswer,
        schemaName: 'bucket_classification',
        temperature: 0,
        signal,
      });
      answer = result.value;
    } catch (error) {
      if (signal?.aborted || CairnError.is(error, 'CANCELLED')) throw error;
      failure = errorMessage(error);
    }
    const byIndex = new Map((answer?.items ?? []).map((a) => [a.index, a]));
    batch.forEach((item, k) => {
      const a = byIndex.get(k);
      if (!a) {
        item.reason = `${item.rules.reason} (model fallback: ${failure || 'no answer for this message'})`;
        stats.fallbackItems += 1;
        return;
      }
      const confidence = a.confidence ?? 0.8;
      item.bucket = a.bucket;
      item.bucket_scores = { ...item.rules.bucket_scores, [a.bucket]: Math.round(confidence * 1000) / 1000 };
      item.reason = `llm ${model.modelId}: ${a.reason ?? a.bucket}`;
      stats.llmItems += 1;
    });
  }
  return stats;
}
