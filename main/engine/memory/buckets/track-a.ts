/**
 * Track A of the dual-track memory (docs/SPEC.md#track-a-semantic-buckets-and-topic-clusters): what
 * a conversation is about. Messages become MemoryItems in five semantic buckets (rules, or a
 * language model when one is given, the rules standing in per batch), keywords come from TF-IDF,
 * and items are grouped into TopicClusters by average-linkage HAC on cosine distance, with a 2-D
 * layout for the cluster map. A cluster's label is its top keywords, or the model's label.
 * Every item and cluster records its extractor.
 *
 * @example
 * const { buckets, clusters } = await runTrackA(conversation);
 * const withModel = await runTrackA(conversation, { llm: createMemoryLlm(model), signal });
 */
import { CairnError } from '../../../../shared/errors.js';
import { BucketType, type Conversation, type MemoryItem, type TopicCluster } from '../../../../shared/types/memory.js';
import { RULES_EXTRACTOR, type MemoryLlm } from '../llm-run.js';
import { buildClusters, clusterLabels, contextVectors, DISTANCE_THRESHOLD } from './clusters.js';
import { draftItems } from './items.js';
import { pcaLayout } from './layout.js';
import { classifyWithModel } from './llm-classifier.js';
import { labelWithModel } from './llm-labeler.js';
import { buildTfIdf, topKeywords } from './tfidf.js';
import { dot, weightedSum, type SparseVector } from './vectors.js';

export interface TrackAOptions {
  /** Classify buckets and label topics with this run's model (rules are the per-batch fallback); rules only when absent. */
  llm?: MemoryLlm;
  signal?: AbortSignal;
  /** HAC cut (1 - cosine); default DISTANCE_THRESHOLD. */
  distanceThreshold?: number;
}

export interface TrackAResult {
  buckets: Record<BucketType, MemoryItem[]>;
  items: MemoryItem[];
  clusters: TopicCluster[];
  stats: { items: number; clusters: number; classifier: 'rules' | 'llm'; llm_calls: number; llm_items: number; fallback_items: number; ms: number };
}

const ITEM_KEYWORDS = 5;

export async function runTrackA(conversation: Conversation, options: TrackAOptions = {}): Promise<TrackAResult> {
  const started = performance.now();
  const drafts = draftItems(conversation);
  const llm = options.llm ? await classifyWithModel(drafts, options.llm, options.signal) : { calls: 0, llmItems: 0, fallbackItems: 0 };
  if (options.signal?.aborted) throw new CairnError('CANCELLED', 'track A was cancelled');
  const result = finishTrackA(drafts, llm, options.llm ? 'llm' : 'rules', options.distanceThreshold, started);
  if (options.llm && result.clusters.length > 0) {
    await labelWithModel(result.clusters, options.llm, options.signal);
    result.stats.ms = Math.round((performance.now() - started) * 10) / 10;
  }
  return result;
}

/** The rules path alone, synchronously (for worker threads and the processor's sync interface). */
export function runTrackARules(conversation: Conversation, options: Pick<TrackAOptions, 'distanceThreshold'> = {}): TrackAResult {
  const started = performance.now();
  return finishTrackA(draftItems(conversation), { calls: 0, llmItems: 0, fallbackItems: 0 }, 'rules', options.distanceThreshold, started);
}

function finishTrackA(
  drafts: ReturnType<typeof draftItems>,
  llm: { calls: number; llmItems: number; fallbackItems: number },
  classifier: 'rules' | 'llm',
  distanceThreshold: number | undefined,
  started: number,
): TrackAResult {
  const tfidf = buildTfIdf(drafts.map((d) => d.text));
  // Relevance: cosine with the conversation's centroid, scaled so the most central item is 1.
  const centroid = weightedSum(tfidf.vectors.map((vector) => ({ vector, scale: 1 })));
  const central = tfidf.vectors.map((v) => dot(v, centroid));
  const maxCentral = Math.max(0, ...central);
  const items: MemoryItem[] = drafts.map(({ rules: _rules, ...draft }, i) => ({
    ...draft,
    extractor: draft.extractor ?? RULES_EXTRACTOR,
    relevance: maxCentral > 0 ? Math.round(((central[i] as number) / maxCentral) * 1000) / 1000 : 0,
    keywords: topKeywords(tfidf, tfidf.vectors[i] as SparseVector, ITEM_KEYWORDS),
  }));

  const vectors = contextVectors(items, tfidf.vectors);
  const labels = clusterLabels(vectors, distanceThreshold ?? DISTANCE_THRESHOLD);
  const layout = pcaLayout(vectors, tfidf.terms.length);
  const clusters = buildClusters(items, tfidf, vectors, labels, layout).map((cluster) => ({ ...cluster, extractor: RULES_EXTRACTOR }));

  const buckets = Object.fromEntries(BucketType.options.map((b) => [b, items.filter((item) => item.bucket === b)])) as Record<BucketType, MemoryItem[]>;
  return {
    buckets,
    items,
    clusters,
    stats: {
      items: items.length,
      clusters: clusters.length,
      classifier,
      llm_calls: llm.calls,
      llm_items: llm.llmItems,
      fallback_items: llm.fallbackItems,
      ms: Math.round((performance.now() - started) * 10) / 10,
    },
  };
}
