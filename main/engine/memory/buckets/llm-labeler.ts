/**
 * Topic labels by a language model: the clusters go out LABEL_BATCH at a time, each as its
 * keywords and its first messages, and come back as short labels (the shape:
 * docs/ARCHITECTURE.md#the-llm-in-the-memory-engine). A cluster keeps its keyword label (the
 * rules) when the call for its batch fails or the answer gives it no usable label (empty, longer
 * than MAX_LABEL_CHARS); each such label is one fallback.
 */
import { z } from 'zod';
import type { TopicCluster } from '../../../../shared/types/memory.js';
import { isCancelled, unusableAnswer, type MemoryLlm } from '../llm-run.js';

export const LABEL_BATCH = 20;
export const MAX_LABEL_CHARS = 80;
/** Messages of a cluster shown to the model, and characters of each. */
const SHOWN_ITEMS = 4;
const SHOWN_CHARS = 200;

export const TopicLabels = z.strictObject({
  labels: z.array(z.strictObject({ index: z.number().int(), label: z.string() })),
});

const SYSTEM = [
  'You name the topics of a conversation for a memory system.',
  'Each topic is a group of messages, given with its keywords and its first messages.',
  'Give each topic a label of 2 to 6 words, in the language of its messages, that says what it is about (no quotes, no final period).',
  'Answer with JSON only: {"labels": [{"index": number, "label": string}]}, one label per topic.',
].join('\n');

/** Replaces the labels of `clusters` (in place) with the model's, batch by batch. */
export async function labelWithModel(clusters: TopicCluster[], llm: MemoryLlm, signal?: AbortSignal): Promise<void> {
  const batches: TopicCluster[][] = [];
  for (let start = 0; start < clusters.length; start += LABEL_BATCH) batches.push(clusters.slice(start, start + LABEL_BATCH));
  await Promise.all(batches.map((batch) => labelBatch(batch, llm, signal)));
}

async function labelBatch(batch: TopicCluster[], llm: MemoryLlm, signal: AbortSignal | undefined): Promise<void> {
  const listing = batch.map((cluster, k) =>
    [`[${k}] keywords: ${cluster.keywords.join(', ')}`, ...cluster.items.slice(0, SHOWN_ITEMS).map((item) => `    ${item.role}: ${item.text.replace(/\s+/g, ' ').slice(0, SHOWN_CHARS)}`)].join('\n'),
  );
  let answer: z.infer<typeof TopicLabels>;
  try {
    ({ value: answer } = await llm.model.completeJson({
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: `Label these ${batch.length} topics:\n${listing.join('\n')}` },
      ],
      schema: TopicLabels,
      schemaName: 'topic_labels',
      temperature: 0,
      signal,
    }));
  } catch (error) {
    if (isCancelled(error, signal)) throw error;
    // The whole batch keeps its keyword labels: one fallback per label.
    for (let k = 0; k < batch.length; k += 1) llm.fellBack('labels', error);
    return;
  }
  const byIndex = new Map(answer.labels.map((a) => [a.index, a.label.replace(/\s+/g, ' ').trim()]));
  batch.forEach((cluster, k) => {
    const label = byIndex.get(k);
    if (label === undefined || label === '') return void llm.fellBack('labels', unusableAnswer('no label for a topic'));
    if (label.length > MAX_LABEL_CHARS) return void llm.fellBack('labels', unusableAnswer(`a topic label longer than ${MAX_LABEL_CHARS} characters`));
    cluster.topic_label = label;
    cluster.extractor = llm.extractor;
    llm.answered('labels');
  });
}
