/**
 * Topic clusters from the items' vectors (the spec's TopicCluster,
 * docs/SPEC.md#track-a-semantic-buckets-and-topic-clusters).
 *
 * Clustering vectors borrow from their neighbours: item i uses v(i) + ½·v(i-1) + ½·v(i+1) within
 * its session, normalized. Short replies ("yes, do that", "谢谢！") carry few or no terms, and
 * borrowing puts them with the topic they answer instead of leaving them as lone clusters.
 *
 * Distance is 1 - cosine; average-linkage HAC is cut at DISTANCE_THRESHOLD, i.e. clusters whose
 * members are on average at least 1 - 0.88 = 0.12 similar. TF-IDF cosines between short chat
 * messages on one topic are small (0.1–0.3), so a stricter cut splits every topic into pairs.
 * Above MAX_HAC_ITEMS items the conversation is clustered in consecutive windows of that size
 * (topics do not span windows) to keep the O(n²) matrix bounded (2,000 items ≈ 16 MB).
 */
import { createHash } from 'node:crypto';
import type { BucketType, MemoryItem, TopicCluster } from '../../../../shared/types/memory.js';
import { BUCKET_ORDER } from './cues.js';
import { averageLinkageMerges, cutAt } from './hac.js';
import { topKeywords, type TfIdf } from './tfidf.js';
import { dot, weightedSum, type SparseVector } from './vectors.js';

export const DISTANCE_THRESHOLD = 0.88;
export const MAX_HAC_ITEMS = 2000;
const NEIGHBOUR_WEIGHT = 0.5;
const CLUSTER_KEYWORDS = 8;

/** How much each bucket matters for long-term memory: decisions and intents are what people come back for. */
export const BUCKET_WEIGHT: Record<BucketType, number> = {
  DECISION_CONTEXT: 1,
  USER_INTENT: 1,
  TASK_CONTEXT: 0.8,
  KNOWLEDGE_GAP: 0.6,
  EMOTIONAL_TRACE: 0.4,
};

/** Each item's vector plus half of its neighbours' in the same session, normalized. */
export function contextVectors(items: Pick<MemoryItem, 'session_id'>[], vectors: SparseVector[]): SparseVector[] {
  return vectors.map((vector, i) => {
    const parts = [{ vector, scale: 1 }];
    for (const j of [i - 1, i + 1]) {
      if (j >= 0 && j < items.length && items[j]?.session_id === items[i]?.session_id) parts.push({ vector: vectors[j] as SparseVector, scale: NEIGHBOUR_WEIGHT });
    }
    return weightedSum(parts);
  });
}

/** A flat cluster label for every vector. */
export function clusterLabels(vectors: SparseVector[], threshold = DISTANCE_THRESHOLD): number[] {
  const labels: number[] = [];
  for (let start = 0; start < vectors.length; start += MAX_HAC_ITEMS) {
    const window = vectors.slice(start, start + MAX_HAC_ITEMS);
    const merges = averageLinkageMerges(window.length, (i, j) => 1 - dot(window[i] as SparseVector, window[j] as SparseVector));
    const offset = labels.length === 0 ? 0 : Math.max(...labels) + 1;
    for (const label of cutAt(window.length, merges, threshold)) labels.push(label + offset);
  }
  return labels;
}

/** Mean pairwise cosine of unit vectors, from their sum: (|Σv|² - Σ|v|²) / (m(m - 1)). 0 for one item. */
export function coherence(vectors: SparseVector[]): number {
  const m = vectors.length;
  if (m < 2) return 0;
  const sum = weightedSum(
    vectors.map((vector) => ({ vector, scale: 1 })),
    false,
  );
  let sumSq = 0;
  for (const w of sum.weight) sumSq += w * w;
  let selfSq = 0;
  for (const v of vectors) for (const w of v.weight) selfSq += w * w;
  return Math.max(0, (sumSq - selfSq) / (m * (m - 1)));
}

function dominantBucket(items: MemoryItem[]): BucketType {
  const count = new Map<BucketType, number>();
  for (const item of items) count.set(item.bucket, (count.get(item.bucket) ?? 0) + 1);
  let best = items[0]?.bucket ?? 'TASK_CONTEXT';
  for (const bucket of BUCKET_ORDER) if ((count.get(bucket) ?? 0) > (count.get(best) ?? 0)) best = bucket;
  return best;
}

/**
 * priority = 0.35·avg_relevance + 0.25·coherence + 0.25·min(1, size/5) + 0.15·BUCKET_WEIGHT[dominant]
 * (all terms in 0..1, so priority is too): relevant, tight, well-attested topics about decisions
 * and intents come first.
 */
export function clusterPriority(avgRelevance: number, coh: number, size: number, dominant: BucketType): number {
  return 0.35 * avgRelevance + 0.25 * coh + 0.25 * Math.min(1, size / 5) + 0.15 * BUCKET_WEIGHT[dominant];
}

/**
 * A cluster is worth extracting into long-term memory when it has at least 3 items, its members
 * are on average at least 0.15 similar, and its priority is at least 0.5.
 */
export function isExtractionCandidate(size: number, coh: number, priority: number): boolean {
  return size >= 3 && coh >= 0.15 && priority >= 0.5;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export function buildClusters(items: MemoryItem[], tfidf: TfIdf, clusterVectors: SparseVector[], labels: number[], layout: [number, number][]): TopicCluster[] {
  const groups = new Map<number, number[]>();
  labels.forEach((label, i) => groups.set(label, [...(groups.get(label) ?? []), i]));
  const clusters = [...groups.values()].map((members) => {
    const memberItems = members.map((i) => items[i] as MemoryItem);
    // Keywords from the items' own vectors (not the neighbour-smoothed ones), summed.
    const summed = weightedSum(
      members.map((i) => ({ vector: tfidf.vectors[i] as SparseVector, scale: 1 })),
      false,
    );
    const keywords = topKeywords(tfidf, summed, CLUSTER_KEYWORDS);
    const coh = round(coherence(members.map((i) => clusterVectors[i] as SparseVector)));
    const avgRelevance = round(memberItems.reduce((s, item) => s + item.relevance, 0) / memberItems.length);
    const dominant = dominantBucket(memberItems);
    const priority = round(clusterPriority(avgRelevance, coh, members.length, dominant));
    const ids = memberItems.map((item) => item.id);
    return {
      first: members[0] as number,
      cluster: {
        cluster_id: `tc_${createHash('sha256').update([...ids].sort().join('\n')).digest('hex').slice(0, 16)}`,
        topic_label: keywords.slice(0, 3).join(' / ') || (memberItems[0]?.text.slice(0, 40) ?? ''),
        dominant_bucket: dominant,
        keywords,
        items: memberItems,
        avg_relevance: avgRelevance,
        coherence: coh,
        priority,
        related_chains: [],
        extraction_candidate: isExtractionCandidate(members.length, coh, priority),
        layout: Object.fromEntries(members.map((i) => [(items[i] as MemoryItem).id, layout[i] as [number, number]])),
      } satisfies TopicCluster,
    };
  });
  clusters.sort((x, y) => y.cluster.priority - x.cluster.priority || x.first - y.first);
  return clusters.map((c) => c.cluster);
}
