/**
 * After the tracks: fusion (bucket-chain links, which fill the clusters' related_chains),
 * cross-validation of every chain against the topic it is most strongly linked to, the
 * multi-dimension summary and the coordinated trigger, assembled into a SessionAnalysis. Pure
 * and synchronous, so the sync interface, the async one and the worker path share it.
 */
import { BucketType, type Conversation, type ExtractedChain, type MemoryItem, type SessionAnalysis, type TopicCluster, type ValidationResult } from '../../../../shared/types/memory.js';
import { BucketChainIndexer } from '../fusion/bucket-chain-indexer.js';
import { CrossValidator } from '../fusion/cross-validator.js';
import { buildMultiDimensionSummary } from '../fusion/multi-dimension-summary.js';
import { messageOrder } from '../fusion/signals.js';
import { CoordinatedExtractionTrigger } from '../trigger/coordinated-trigger.js';

export interface TrackOutputs {
  /** Null when track A was switched off. */
  trackA: { buckets: Record<BucketType, MemoryItem[]>; clusters: TopicCluster[] } | null;
  /** Null when track B was switched off. */
  chains: ExtractedChain[] | null;
}

export const FUSION_STAGES = ['fusion', 'validation', 'summary', 'trigger'] as const;
export type FusionStage = (typeof FUSION_STAGES)[number];

export function emptyBuckets(): Record<BucketType, MemoryItem[]> {
  return Object.fromEntries(BucketType.options.map((b) => [b, []])) as unknown as Record<BucketType, MemoryItem[]>;
}

/**
 * Fuses the two tracks' outputs. `record` receives each stage's milliseconds.
 *
 * @example
 * const analysis = fuseTracks(conversation, { trackA: runTrackARules(conversation), chains });
 */
export function fuseTracks(conversation: Conversation, outputs: TrackOutputs, record: (stage: FusionStage, ms: number) => void = () => {}): Omit<SessionAnalysis, 'tracks' | 'timings_ms'> {
  const order = messageOrder(conversation);
  const chains = outputs.chains ?? [];
  const inputClusters = outputs.trackA?.clusters ?? [];

  let t = performance.now();
  const { links, clusters } = new BucketChainIndexer({ order }).build(inputClusters, chains);
  record('fusion', performance.now() - t);

  t = performance.now();
  const timestamps = new Map<string, string>();
  for (const session of conversation.sessions) for (const m of session.messages) if (m.timestamp) timestamps.set(m.id, m.timestamp);
  const validator = new CrossValidator({ order, timestamps });
  // Each chain is checked against the topic it is most strongly linked to (links come strongest first per cluster).
  const best = new Map<string, { strength: number; cluster: TopicCluster }>();
  const clusterById = new Map(clusters.map((c) => [c.cluster_id, c]));
  for (const link of links) {
    const current = best.get(link.chain_id);
    const cluster = clusterById.get(link.cluster_id);
    if (cluster && (!current || link.strength > current.strength)) best.set(link.chain_id, { strength: link.strength, cluster });
  }
  const validations: ValidationResult[] = chains.map((chain) => validator.validate(chain, best.get(chain.chain_id)?.cluster));
  record('validation', performance.now() - t);

  t = performance.now();
  const summary = buildMultiDimensionSummary({ clusters, chains, links, validations });
  record('summary', performance.now() - t);

  t = performance.now();
  const trigger = new CoordinatedExtractionTrigger().evaluate({ clusters, chains, links, validations });
  record('trigger', performance.now() - t);

  return {
    conversation_id: conversation.id,
    buckets: outputs.trackA?.buckets ?? emptyBuckets(),
    clusters,
    chains,
    links,
    validations,
    summary,
    trigger,
  };
}
