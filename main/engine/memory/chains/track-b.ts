/**
 * Track B of the dual-track memory (docs/SPEC.md#track-b-chains): CAUSAL, LOGIC, OPERATION,
 * NARRATIVE and TIME chains from a conversation. With a model, the model extracts them, window by
 * window; a window whose call fails (anything but a cancellation) gets the rules' chains for its
 * messages, each chain's metadata saying why. Without a model, only the rules run: no I/O,
 * synchronous underneath, well under a millisecond per message. Every chain records its extractor.
 *
 * @example
 * const chains = await runTrackB(conversation);                  // rules
 * const chains = await runTrackB(conversation, { llm, signal }); // model, rules per failed window
 */
import type { ChainType, Conversation, ExtractedChain } from '../../../../shared/types/memory.js';
import { RULES_EXTRACTOR, type MemoryLlm } from '../llm-run.js';
import { uniqueIds } from './build-chain.js';
import { extractCausal } from './extract-causal.js';
import { extractLogic } from './extract-logic.js';
import { extractNarrative } from './extract-narrative.js';
import { extractOperation } from './extract-operation.js';
import { extractTime } from './extract-time.js';
import { extractWithModel } from './llm-extractor.js';
import { conversationUnits, orderedMessages, type OrderedMessage, type Unit } from './text-units.js';

export const ALL_CHAIN_TYPES: readonly ChainType[] = ['CAUSAL', 'LOGIC', 'OPERATION', 'NARRATIVE', 'TIME'];

const RULES: Record<ChainType, (units: Unit[], createdAt: string) => ExtractedChain[]> = {
  CAUSAL: extractCausal,
  LOGIC: extractLogic,
  OPERATION: extractOperation,
  NARRATIVE: extractNarrative,
  TIME: extractTime,
};

export interface TrackBOptions {
  /** When given, this run's model extracts the chains and the rules are the fallback, per window. */
  llm?: MemoryLlm;
  signal?: AbortSignal;
  /** Chain types to extract (default: all five). */
  types?: readonly ChainType[];
  /** Messages per model call (default 80). */
  windowMessages?: number;
  /** `created_at` of chains whose messages carry no timestamp (default: now). */
  now?: () => Date;
}

/** Chains of the conversation, in type order (CAUSAL … TIME) and within a type in reading order. */
export async function runTrackB(conversation: Conversation, options: TrackBOptions = {}): Promise<ExtractedChain[]> {
  const types = options.types ?? ALL_CHAIN_TYPES;
  const messages = orderedMessages(conversation);
  const createdAt = (options.now?.() ?? new Date()).toISOString();
  if (!options.llm) return rulesOn(messages, types, createdAt);
  // Falls back per window inside; only a cancellation comes out of it.
  const chains = await extractWithModel(options.llm, messages, {
    types: [...types],
    signal: options.signal,
    windowMessages: options.windowMessages ?? 80,
    createdAt,
    rules: (window) => rulesOn(window, types, createdAt),
  });
  return uniqueIds(sortChains(chains, types));
}

/** The rule path alone, synchronously (for workers and benchmarks). */
export function extractChainsWithRules(conversation: Conversation, options: Pick<TrackBOptions, 'types' | 'now'> = {}): ExtractedChain[] {
  return rulesOn(orderedMessages(conversation), options.types ?? ALL_CHAIN_TYPES, (options.now?.() ?? new Date()).toISOString());
}

function rulesOn(messages: OrderedMessage[], types: readonly ChainType[], createdAt: string): ExtractedChain[] {
  const units = conversationUnits(messages);
  return uniqueIds(ALL_CHAIN_TYPES.filter((t) => types.includes(t)).flatMap((type) => RULES[type](units, createdAt))).map((chain) => ({ ...chain, extractor: RULES_EXTRACTOR }));
}

function sortChains(chains: ExtractedChain[], types: readonly ChainType[]): ExtractedChain[] {
  const order = (c: ExtractedChain) => ALL_CHAIN_TYPES.indexOf(c.chain_type);
  return chains.filter((c) => types.includes(c.chain_type)).sort((a, b) => order(a) - order(b));
}
