/**
 * The seed's CoordinatedExtractionTrigger (docs/SPEC.md#coordinated-trigger): decides whether the
 * short-term material is ready to become long-term memory.
 *
 *   score = 0.3 · bucket_ready + 0.3 · chain_ready + 0.25 · complementarity + 0.15 · quality
 *
 * COORDINATED_EXTRACTION when score > 0.7 (strictly, as in the seed), else WAIT. The score is
 * rounded to 6 decimals before the comparison, so float noise (0.7000000000000001) cannot tip
 * a tie. The factors, each in 0..1:
 *
 * - bucket_ready: share of clustered items that sit in clusters marked extraction_candidate
 *   (track A thinks they are worth keeping), weighted by items so one big topic counts more
 *   than a stray one.
 * - chain_ready: mean extraction_confidence of the chains × min(1, chains / 3): a few confident
 *   chains are needed, one lucky chain is not enough.
 * - complementarity: ½ · share of clusters linked to a chain + ½ · share of chains linked to a
 *   cluster (the tracks explain each other); 0 when either side is empty.
 * - quality: ½ · mean cluster coherence + ½ · mean validation confidence (0.5, "unknown", when
 *   nothing was validated).
 */
import { TRIGGER_WEIGHTS, type BucketChainLink, type ExtractedChain, type TopicCluster, type TriggerDecision, type TriggerEvidence, type TriggerFactors, type ValidationResult } from '../../../../shared/types/memory.js';

export const TRIGGER_THRESHOLD = 0.7;
/** Chains needed for chain_ready to reach its mean confidence. */
export const CHAINS_FOR_FULL_READINESS = 3;
/** Validation part of quality when nothing was validated. */
export const UNKNOWN_VALIDATION = 0.5;

export interface TriggerInput {
  clusters: TopicCluster[];
  chains: ExtractedChain[];
  links: BucketChainLink[];
  validations: ValidationResult[];
}

export class CoordinatedExtractionTrigger {
  constructor(private readonly threshold = TRIGGER_THRESHOLD) {}

  evaluate(input: TriggerInput): TriggerDecision {
    const { factors, evidence } = computeFactors(input);
    return { ...this.decide(factors, whyInEnglish(evidence)), evidence };
  }

  /** The weighted decision for given factors (also used by tests and by callers with their own factors). */
  decide(factors: TriggerFactors, why: Partial<Record<keyof TriggerFactors, string>> = {}): TriggerDecision {
    const keys = Object.keys(TRIGGER_WEIGHTS) as (keyof TriggerFactors)[];
    let sum = 0;
    const explanation: string[] = [];
    for (const key of keys) {
      const part = factors[key] * TRIGGER_WEIGHTS[key];
      sum += part;
      explanation.push(`${key} ${fmt(factors[key])} × ${TRIGGER_WEIGHTS[key]} = ${fmt(part, 3)}${why[key] ? ` (${why[key]})` : ''}`);
    }
    const score = Math.round(sum * 1e6) / 1e6;
    const go = score > this.threshold;
    explanation.push(`score ${fmt(score, 3)} ${go ? '>' : '≤'} ${this.threshold}: ${go ? 'COORDINATED_EXTRACTION' : 'WAIT'}`);
    return { action: go ? 'COORDINATED_EXTRACTION' : 'WAIT', confidence: score, factors, threshold: this.threshold, explanation };
  }
}

/** The four factors and the counts they come from (the counts let a view explain them in its language). */
export function computeFactors(input: TriggerInput): { factors: TriggerFactors; evidence: TriggerEvidence } {
  const { clusters, chains, links, validations } = input;
  const items = clusters.reduce((n, c) => n + c.items.length, 0);
  const readyItems = clusters.filter((c) => c.extraction_candidate).reduce((n, c) => n + c.items.length, 0);
  const bucket_ready = items === 0 ? 0 : readyItems / items;

  const meanConfidence = chains.length === 0 ? 0 : chains.reduce((s, c) => s + c.extraction_confidence, 0) / chains.length;
  const saturation = Math.min(1, chains.length / CHAINS_FOR_FULL_READINESS);
  const chain_ready = meanConfidence * saturation;

  const linkedClusters = new Set(links.map((l) => l.cluster_id));
  const linkedChains = new Set(links.map((l) => l.chain_id));
  const clusterShare = clusters.length === 0 ? 0 : clusters.filter((c) => linkedClusters.has(c.cluster_id)).length / clusters.length;
  const chainShare = chains.length === 0 ? 0 : chains.filter((c) => linkedChains.has(c.chain_id)).length / chains.length;
  const complementarity = clusters.length === 0 || chains.length === 0 ? 0 : 0.5 * clusterShare + 0.5 * chainShare;

  const coherence = clusters.length === 0 ? 0 : clusters.reduce((s, c) => s + c.coherence, 0) / clusters.length;
  const validation = validations.length === 0 ? null : validations.reduce((s, v) => s + v.confidence, 0) / validations.length;
  const quality = 0.5 * coherence + 0.5 * (validation ?? UNKNOWN_VALIDATION);

  return {
    factors: { bucket_ready, chain_ready, complementarity, quality },
    evidence: {
      ready_items: readyItems,
      items,
      mean_chain_confidence: meanConfidence,
      chains: chains.length,
      chains_needed: CHAINS_FOR_FULL_READINESS,
      linked_clusters: linkedClusters.size,
      clusters: clusters.length,
      linked_chains: linkedChains.size,
      coherence,
      validation,
    },
  };
}

/** The factors' reasons in the CLI's English (the app says them from `evidence` in the page's language). */
function whyInEnglish(e: TriggerEvidence): Record<keyof TriggerFactors, string> {
  return {
    bucket_ready: `${e.ready_items} of ${e.items} items in extraction-candidate clusters`,
    chain_ready: `mean confidence ${fmt(e.mean_chain_confidence)} × min(1, ${e.chains}/${e.chains_needed})`,
    complementarity: `${e.linked_clusters} of ${e.clusters} clusters and ${e.linked_chains} of ${e.chains} chains linked`,
    quality: `coherence ${fmt(e.coherence)}, validation ${e.validation === null ? `none (${fmt(UNKNOWN_VALIDATION)})` : fmt(e.validation)}`,
  };
}

function fmt(value: number, digits = 2): string {
  return value.toFixed(digits);
}
