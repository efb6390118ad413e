/**
 * The seed's MultiDimensionSummary (docs/SPEC.md#fusion): what the conversation is about (semantic
 * dimension), why and how (one line per chain type, structural dimension), and how the two tracks
 * tie together (relational dimension), with two scores:
 *
 *   completeness = 0.25 · [any cluster] + 0.25 · [any chain]
 *                + 0.25 · (clusters with a link / clusters) + 0.25 · (chains with a link / chains)
 *   consistency  = mean confidence of the validations (1 when nothing was validated)
 *
 * Completeness asks "did both tracks find something, and does each side explain the other?";
 * consistency carries the cross-validator's verdicts.
 */
import type { BucketChainLink, ChainType, ExtractedChain, MultiDimensionSummary, TopicCluster, ValidationResult } from '../../../../shared/types/memory.js';

const TOP_KEYWORDS = 8;
const TOP_TOPICS = 3;

export interface SummaryInput {
  clusters: TopicCluster[];
  chains: ExtractedChain[];
  links: BucketChainLink[];
  validations: ValidationResult[];
}

export function buildMultiDimensionSummary(input: SummaryInput): MultiDimensionSummary {
  const { clusters, chains, links, validations } = input;
  const byPriority = [...clusters].sort((a, b) => b.priority - a.priority || a.cluster_id.localeCompare(b.cluster_id));
  const topic_summary =
    byPriority.length === 0
      ? ''
      : byPriority
          .slice(0, TOP_TOPICS)
          .map((c) => `${c.topic_label} (${c.items.length} items, ${c.dominant_bucket})`)
          .join('; ') + (byPriority.length > TOP_TOPICS ? `; +${byPriority.length - TOP_TOPICS} more topics` : '');
  const linkedClusters = new Set(links.map((l) => l.cluster_id));
  const linkedChains = new Set(links.map((l) => l.chain_id));
  const chainType = new Map(chains.map((c) => [c.chain_id, c.chain_type]));
  const completeness =
    0.25 * (clusters.length > 0 ? 1 : 0) +
    0.25 * (chains.length > 0 ? 1 : 0) +
    0.25 * (clusters.length > 0 ? clusters.filter((c) => linkedClusters.has(c.cluster_id)).length / clusters.length : 0) +
    0.25 * (chains.length > 0 ? chains.filter((c) => linkedChains.has(c.chain_id)).length / chains.length : 0);
  const consistency = validations.length === 0 ? 1 : validations.reduce((sum, v) => sum + v.confidence, 0) / validations.length;
  return {
    topic_summary,
    dominant_keywords: dominantKeywords(byPriority),
    causal_summary: typeSummary(chains, 'CAUSAL'),
    logic_summary: typeSummary(chains, 'LOGIC'),
    operation_summary: typeSummary(chains, 'OPERATION'),
    narrative_summary: typeSummary(chains, 'NARRATIVE'),
    time_summary: typeSummary(chains, 'TIME'),
    bucket_chain_relations: links.map((l) => ({ cluster_id: l.cluster_id, chain_id: l.chain_id, chain_type: chainType.get(l.chain_id) ?? 'unknown', link_type: l.link_type, strength: l.strength })),
    completeness_score: round(completeness),
    consistency_score: round(consistency),
  };
}

/** Keywords by the summed priority of the clusters naming them (a keyword of two topics outranks one of one). */
function dominantKeywords(clusters: TopicCluster[]): string[] {
  const weight = new Map<string, number>();
  for (const cluster of clusters) for (const keyword of cluster.keywords) weight.set(keyword, (weight.get(keyword) ?? 0) + Math.max(cluster.priority, 0.001));
  return [...weight.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, TOP_KEYWORDS)
    .map(([k]) => k);
}

/** The most confident chain of the type, and how many others there are. */
function typeSummary(chains: ExtractedChain[], type: ChainType): string {
  const ofType = chains.filter((c) => c.chain_type === type).sort((a, b) => b.extraction_confidence - a.extraction_confidence);
  const best = ofType[0];
  if (!best) return '';
  return ofType.length > 1 ? `${best.summary} (+${ofType.length - 1} more)` : best.summary;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
