/**
 * Turns the steps an extractor found into an ExtractedChain: a deterministic id, the one-line
 * summary, the source text, the messages it came from, and a confidence computed from signals
 * the extractor reports (documented on `ruleConfidence`).
 */
import type { ChainNode, ChainType, ExtractedChain } from '../../../../shared/types/memory.js';
import { sha256 } from '../../util/hash.js';
import { calibrateChain } from '../fusion/calibration.js';
import type { Unit } from './text-units.js';

/** One step as the rule extractors find it. */
export interface Step {
  role: string;
  text: string;
  unit: Unit;
  /** The marker that gave this step its role ("because", "然后", "1."), or undefined when inferred from position. */
  marker?: string;
  time?: string;
}

/** What a rule extractor knows about the chain beyond its steps. */
export interface RuleSignals {
  /** Whether the chain reached its goal role (CAUSAL solution/effect, LOGIC conclusion, OPERATION result). */
  complete: boolean;
}

/** The version of the rules, recorded in metadata so stored chains say which rules made them. */
export const RULES_VERSION = 1;

const SUMMARY_STEP_CHARS = 48;

/**
 * The rule path's confidence, in 0..0.95:
 *   0.35                               a chain with two steps and nothing else
 * + 0.35 × marker coverage             share of steps whose role an explicit marker gave
 * + 0.15 × min(1, (steps − 2) / 2)     longer chains (up to 4 steps) are less likely accidental
 * + 0.10 if complete                   the chain reaches its goal role
 * + 0.05 if it spans several messages  a problem in one message and its fix in another
 * capped at 0.95: rules never claim certainty.
 */
/** Rules never claim certainty: neither their score nor its calibrated precision goes above this. */
export const MAX_RULE_CONFIDENCE = 0.95;

export function ruleConfidence(steps: Step[], signals: RuleSignals): number {
  const marked = steps.filter((s) => s.marker !== undefined).length / steps.length;
  const messages = new Set(steps.map((s) => s.unit.message_id)).size;
  const value = 0.35 + 0.35 * marked + 0.15 * Math.min(1, (steps.length - 2) / 2) + (signals.complete ? 0.1 : 0) + (messages > 1 ? 0.05 : 0);
  return round(Math.min(MAX_RULE_CONFIDENCE, value));
}

export function round(value: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** The seed's to_summary() (docs/SPEC.md#track-b-chains): "a → b → c", each step shortened. */
export function chainSummary(nodes: Pick<ChainNode, 'text'>[]): string {
  return nodes.map((n) => shorten(n.text, SUMMARY_STEP_CHARS)).join(' → ');
}

let wordSegmenter: Intl.Segmenter | undefined;

/**
 * The text on one line, at most `max` characters: when longer, cut after the last whole word
 * that fits (ICU word boundaries, so Chinese is cut between words too) and marked with "…".
 * A word longer than the whole width is the only thing ever cut inside.
 */
export function shorten(text: string, max: number): string {
  const flat = flatText(text);
  if (flat.length <= max) return flat;
  wordSegmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  let cut = 0;
  for (const { index, segment } of wordSegmenter.segment(flat)) {
    const end = index + segment.length;
    if (end > max - 1) break;
    cut = end;
  }
  const head = flat.slice(0, cut || max - 1).replace(/[\s,，、;；:：(（\-–—]+$/u, '');
  return `${head}…`;
}

/** Deterministic id: the type and the ordered message ids of the nodes. */
export function chainId(type: ChainType, nodes: Pick<ChainNode, 'message_ids'>[]): string {
  const key = `${type}|${nodes.map((n) => n.message_ids.join(',')).join('>')}`;
  return `${type.toLowerCase()}-${sha256(key).slice(0, 16)}`;
}

/** Builds the chain from rule steps; undefined when fewer than two steps remain. */
export function chainFromSteps(type: ChainType, allSteps: Step[], signals: RuleSignals, createdAt: string): ExtractedChain | undefined {
  const steps = distinctSteps(allSteps);
  if (steps.length < 2) return undefined;
  const nodes: ChainNode[] = steps.map((step, i) => ({
    id: `n${i + 1}`,
    role: step.role,
    text: step.text,
    message_ids: [step.unit.message_id],
    ...(step.time !== undefined ? { time: step.time } : {}),
  }));
  const sources = [...new Set(steps.map((s) => s.unit.message_id))];
  const score = ruleConfidence(steps, signals);
  const lastStamp = [...steps].reverse().find((s) => s.unit.timestamp)?.unit.timestamp;
  return {
    chain_id: chainId(type, nodes),
    chain_type: type,
    content: steps.map((s) => s.text).join('\n'),
    nodes,
    // The measured precision of chains with this rule score (fusion/calibration.ts); the score itself is kept in metadata.
    // (A step measured right 50 times in 52 says 0.962; the rules still claim no more than the cap.)
    extraction_confidence: Math.min(MAX_RULE_CONFIDENCE, calibrateChain(type, score)),
    created_at: lastStamp ?? createdAt,
    source_message_ids: sources,
    summary: chainSummary(nodes),
    metadata: {
      method: 'rules',
      rules_version: RULES_VERSION,
      matched: [...new Set(steps.flatMap((s) => (s.marker ? [s.marker] : [])))],
      complete: signals.complete,
      rule_confidence: score,
    },
  };
}

/** Whitespace-normalized text, for comparing steps and checking them against their message. */
export function flatText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * The steps without repeats: a step is dropped when an earlier one has the same text, or comes
 * from the same sentence and holds it or is held by it (one clause found by two rules).
 */
export function distinctSteps(steps: Step[]): Step[] {
  const kept: Step[] = [];
  for (const step of steps) {
    const text = flatText(step.text);
    const repeat = kept.some((k) => {
      const other = flatText(k.text);
      if (other === text) return true;
      return k.unit.message_id === step.unit.message_id && k.unit.sentence === step.unit.sentence && (other.includes(text) || text.includes(other));
    });
    if (!repeat) kept.push(step);
  }
  return kept;
}

/** Keeps the first chain of each id; a later one with the same type and messages gets a suffix. */
export function uniqueIds(chains: ExtractedChain[]): ExtractedChain[] {
  const seen = new Map<string, number>();
  return chains.map((chain) => {
    const count = seen.get(chain.chain_id) ?? 0;
    seen.set(chain.chain_id, count + 1);
    return count === 0 ? chain : { ...chain, chain_id: `${chain.chain_id}-${count + 1}` };
  });
}
