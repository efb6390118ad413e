/**
 * Bucket classification by a language model, BATCH_SIZE messages a call (the shape:
 * docs/ARCHITECTURE.md#the-llm-in-the-memory-engine). A batch whose call fails (an HTTP error, a
 * timeout, an answer of the wrong shape after the one retry, the token budget) keeps its rule
 * classification, and its items' reason says why; so does an item the answer leaves out. The
 * batches go out together (the runtime's limiter caps calls in flight). A cancelled run stops
 * instead of falling back.
 */
import { bucketReason } from '../../../../shared/bucket-reason.js';
import { z } from 'zod';
import { BucketType } from '../../../../shared/types/memory.js';
import { isCancelled, type MemoryLlm } from '../llm-run.js';
import type { DraftItem } from './items.js';

export const BATCH_SIZE = 20;
const MAX_ITEM_CHARS = 600;

/** Strict: every field required, no other keys (OpenAI's strict structured outputs accept it). */
export const BucketAnswer = z.strictObject({
  items: z.array(
    z.strictObject({
      index: z.number().int(),
      bucket: BucketType,
      confidence: z.number().min(0).max(1),
      reason: z.string(),
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
  'Answer with JSON only: {"items": [{"index": number, "bucket": string, "confidence": number (0..1), "reason": string (a few words)}]}, one item per message.',
].join('\n');

export interface ClassifyStats {
  calls: number;
  llmItems: number;
  fallbackItems: number;
}

/** Replaces the rule buckets of `items` (in place) with the model's, batch by batch. */
export async function classifyWithModel(items: DraftItem[], llm: MemoryLlm, signal?: AbortSignal): Promise<ClassifyStats> {
  const batches: DraftItem[][] = [];
  for (let start = 0; start < items.length; start += BATCH_SIZE) batches.push(items.slice(start, start + BATCH_SIZE));
  const counts = await Promise.all(batches.map((batch) => classifyBatch(batch, llm, signal)));
  return { calls: batches.length, llmItems: counts.reduce((n, c) => n + c, 0), fallbackItems: items.length - counts.reduce((n, c) => n + c, 0) };
}

/** One call for the batch; returns how many of its items the model classified. */
async function classifyBatch(batch: DraftItem[], llm: MemoryLlm, signal: AbortSignal | undefined): Promise<number> {
  const listing = batch.map((item, k) => `[${k}] ${item.role}: ${item.text.replace(/\s+/g, ' ').slice(0, MAX_ITEM_CHARS)}`).join('\n');
  let answer: z.infer<typeof BucketAnswer>;
  try {
    const result = await llm.model.completeJson({
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
    if (isCancelled(error, signal)) throw error;
    const cause = llm.fellBack('buckets', error);
    for (const item of batch) Object.assign(item, bucketReason({ ...item.rules.why, fallback: cause }));
    return 0;
  }
  llm.answered('buckets');
  const byIndex = new Map(answer.items.map((a) => [a.index, a]));
  let classified = 0;
  batch.forEach((item, k) => {
    const a = byIndex.get(k);
    if (!a) {
      Object.assign(item, bucketReason({ ...item.rules.why, fallback: 'no_answer' }));
      return;
    }
    item.bucket = a.bucket;
    item.bucket_scores = { ...item.bucket_scores, [a.bucket]: Math.round(a.confidence * 1000) / 1000 };
    Object.assign(item, bucketReason({ by: 'llm', bucket: a.bucket, detail: a.reason.trim() }));
    item.extractor = llm.extractor;
    classified += 1;
  });
  return classified;
}
