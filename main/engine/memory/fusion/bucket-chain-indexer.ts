/**
 * The seed's BucketChainIndexer (docs/SPEC.md#fusion): links topic clusters (track A) to chains (track B).
 *
 *   strength = 0.4 · content + 0.3 · time + 0.3 · semantic        (signals.ts defines each)
 *
 * and a link exists when strength > LINK_THRESHOLD (0.5, strictly greater, as in the seed).
 * Content weighs most because shared keywords are the most specific evidence; time alone (two
 * things said in the same stretch of talk) cannot make a link: 0.3 < 0.5.
 *
 * @example
 * const { links, clusters } = new BucketChainIndexer({ order: messageOrder(conversation) }).build(clusters, chains);
 */
import type { BucketChainLink, ExtractedChain, TopicCluster } from '../../../../shared/types/memory.js';
import { chainProfile, clusterProfile, contentMatch, semantic, timeWindow, type ChainProfile, type ClusterProfile, type MessageOrder, type Signal } from './signals.js';

export const LINK_WEIGHTS = { content_match: 0.4, time_window: 0.3, semantic: 0.3 } as const;
export const LINK_THRESHOLD = 0.5;

export interface IndexResult {
  links: BucketChainLink[];
  /** Copies of the clusters with `related_chains` filled (strongest link first). */
  clusters: TopicCluster[];
}

export class BucketChainIndexer {
  private readonly order: MessageOrder;
  private readonly threshold: number;

  constructor(options: { order: MessageOrder; threshold?: number }) {
    this.order = options.order;
    this.threshold = options.threshold ?? LINK_THRESHOLD;
  }

  /** The link between one cluster and one chain, whether or not it passes the threshold. */
  score(cluster: TopicCluster, chain: ExtractedChain): BucketChainLink {
    return this.scoreProfiles(cluster, chain, clusterProfile(cluster, this.order), chainProfile(chain, this.order));
  }

  private scoreProfiles(cluster: TopicCluster, chain: ExtractedChain, clusterSide: ClusterProfile, chainSide: ChainProfile): BucketChainLink {
    const signals: Record<keyof typeof LINK_WEIGHTS, Signal> = {
      content_match: contentMatch(clusterSide, chainSide),
      time_window: timeWindow(clusterSide, chainSide),
      semantic: semantic(clusterSide, chainSide),
    };
    let strength = 0;
    let strongest: keyof typeof LINK_WEIGHTS = 'content_match';
    for (const key of Object.keys(LINK_WEIGHTS) as (keyof typeof LINK_WEIGHTS)[]) {
      const part = LINK_WEIGHTS[key] * signals[key].value;
      strength += part;
      if (part > LINK_WEIGHTS[strongest] * signals[strongest].value) strongest = key;
    }
    strength = Math.round(strength * 10_000) / 10_000;
    return {
      cluster_id: cluster.cluster_id,
      chain_id: chain.chain_id,
      link_type: strongest,
      strength,
      evidence: [signals.content_match.evidence, signals.time_window.evidence, signals.semantic.evidence, `strength ${strength.toFixed(2)} (threshold ${this.threshold})`],
    };
  }

  build(clusters: TopicCluster[], chains: ExtractedChain[]): IndexResult {
    // Profiles (terms, spans) are computed once per cluster and per chain, not once per pair.
    const chainSides = chains.map((chain) => chainProfile(chain, this.order));
    const links: BucketChainLink[] = [];
    const updated = clusters.map((cluster) => {
      const clusterSide = clusterProfile(cluster, this.order);
      const own = chains
        .map((chain, i) => this.scoreProfiles(cluster, chain, clusterSide, chainSides[i] as ChainProfile))
        .filter((link) => link.strength > this.threshold)
        .sort((a, b) => b.strength - a.strength);
      links.push(...own);
      return { ...cluster, related_chains: [...new Set([...cluster.related_chains, ...own.map((l) => l.chain_id)])] };
    });
    return { links, clusters: updated };
  }
}
