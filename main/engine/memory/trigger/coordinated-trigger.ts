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
import type { BucketChainLink, ExtractedChain, TopicCluster, TriggerDecision, TriggerFactors, ValidationResult } from '../../../../shared/types/memory.js';

export const TRIGGER_WEIGHTS: Readonly<TriggerFactors> = { bucket_ready: 0.3, chain_ready: 0.3, complementarity: 0.25, quality: 0.15 };
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

export interface FactorDetail {
  value: number;
  why: string;
}

export class CoordinatedExtractionTrigger {
  constructor(private readonly threshold = TRIGGER_THRESHOLD) {}

  evaluate(input: TriggerInput): TriggerDecision {
    const details = computeFactors(input);
    return this.decide(
      { bucket_ready: details.bucket_ready.value, chain_ready: details.chain_ready.value, complementarity: details.complementarity.value, quality: details.quality.value },
      { bucket_ready: details.bucket_ready.why, chain_ready: details.chain_ready.why, complementarity: details.complementarity.why, quality: details.quality.why },
    );
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

export function computeFactors(input: TriggerInput): Record<keyof TriggerFactors, FactorDetail> {
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
  const validation = validations.length === 0 ? UNKNOWN_VALIDATION : validations.reduce((s, v) => s + v.confidence, 0) / validations.length;
  const quality = 0.5 * coherence + 0.5 * validation;

  return {
    bucket_ready: { value: bucket_ready, why: `${readyItems} of ${items} items in extraction-candidate clusters` },
    chain_ready: { value: chain_ready, why: `mean confidence ${fmt(meanConfidence)} × min(1, ${chains.length}/${CHAINS_FOR_FULL_READINESS})` },
    complementarity: { value: complementarity, why: `${linkedClusters.size} of ${clusters.length} clusters and ${linkedChains.size} of ${chains.length} chains linked` },
    quality: { value: quality, why: `coherence ${fmt(coherence)}, validation ${validations.length === 0 ? 'none (0.50)' : fmt(validation)}` },
  };
}

function fmt(value: number, digits = 2): string {
  return value.toFixed(digits);
}
