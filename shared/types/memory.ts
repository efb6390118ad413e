/**
 * The data of the dual-track memory engine (docs/SPEC.md#dual-track-memory): conversations in,
 * semantic buckets and topic clusters (track A) and reasoning chains (track B) out, fused and
 * committed as long-term memories. Field names follow the seed so its examples read the same.
 * These are zod schemas because they cross the contract (CLI --json, web host, Electron IPC).
 */
import { z } from 'zod';
import { BucketWhy } from '../bucket-reason.js';
import { ChangeCause } from '../memory-change-cause.js';
import { CauseCounts } from '../llm-cause.js';

export const Role = z.enum(['user', 'assistant', 'system', 'tool']);
export type Role = z.infer<typeof Role>;

/** One message. `id` is stable: ids a file carries are kept, others are `{session}:{n}` (1-based). */
export const Message = z.object({
  id: z.string().min(1),
  role: Role,
  /** The person or agent who spoke, when the source names one ("Ana", "Claude"). */
  speaker: z.string().optional(),
  text: z.string(),
  /** ISO 8601, when the source has it. */
  timestamp: z.string().optional(),
});
export type Message = z.infer<typeof Message>;

export const Session = z.object({
  id: z.string().min(1),
  started_at: z.string().optional(),
  messages: z.array(Message),
});
export type Session = z.infer<typeof Session>;

/**
 * Cairn's own conversation JSON (docs/ARCHITECTURE.md#conversations); every import format is read
 * into this.
 */
export const Conversation = z.object({
  id: z.string().min(1),
  title: z.string().optional(),
  sessions: z.array(Session),
  /** Import format it was read from: cairn | jsonl | markdown | chatgpt | claude. */
  source_format: z.string().optional(),
  /** Absolute path of the imported file. */
  source_path: z.string().optional(),
});
export type Conversation = z.infer<typeof Conversation>;

// ---------------------------------------------------------------------------------------------
// Who made a bucket item, a topic label, a chain or a memory candidate (issue 17, item 6)

/** The rules, or a language model (and which): shown by the Sessions view and in `--json`. */
export const Extractor = z.object({ kind: z.enum(['rules', 'llm']), model: z.string().optional() });
export type Extractor = z.infer<typeof Extractor>;

/**
 * What the LLM did in one run of the memory engine (an analysis, a commit): per stage, the units
 * it answered (a batch of messages, a window's chains, a topic label, a dedup decision) and the
 * ones that fell back to the rules, with their causes grouped (shared/llm-cause.ts).
 */
export const MemoryLlmReport = z.object({
  model: z.string(),
  stages: z.record(z.string(), z.object({ llm: z.number().int(), fallbacks: z.number().int() })),
  fallbacks: z.number().int(),
  fallback_causes: CauseCounts,
  /** Chain steps refused because their text is not in the message they cite. */
  refused_steps: z.number().int(),
});
export type MemoryLlmReport = z.infer<typeof MemoryLlmReport>;

// ---------------------------------------------------------------------------------------------
// Track A: semantic buckets and topic clusters

export const BucketType = z.enum(['TASK_CONTEXT', 'USER_INTENT', 'DECISION_CONTEXT', 'KNOWLEDGE_GAP', 'EMOTIONAL_TRACE']);
export type BucketType = z.infer<typeof BucketType>;

/** The seed's ShortTermMemoryItem: one classified unit of a conversation (a message or a part of one). */
export const MemoryItem = z.object({
  id: z.string(),
  session_id: z.string(),
  message_ids: z.array(z.string()).min(1),
  role: Role,
  speaker: z.string().optional(),
  text: z.string(),
  timestamp: z.string().optional(),
  bucket: BucketType,
  /** Score of each bucket the classifier considered (0..1); `bucket` is the best of them. */
  bucket_scores: z.record(z.string(), z.number()).optional(),
  /** How much this item matters to the conversation's topics (0..1). */
  relevance: z.number(),
  keywords: z.array(z.string()),
  /** Why the classifier chose `bucket` (the rule or the model's reason), in English. */
  reason: z.string().optional(),
  /** The same as a structure a view says in its own language (shared/bucket-reason.ts); absent on analyses stored before it. */
  why: BucketWhy.optional(),
  /** Who chose `bucket`. */
  extractor: Extractor.optional(),
});
export type MemoryItem = z.infer<typeof MemoryItem>;

export const TopicCluster = z.object({
  cluster_id: z.string(),
  topic_label: z.string(),
  dominant_bucket: BucketType,
  keywords: z.array(z.string()),
  items: z.array(MemoryItem),
  avg_relevance: z.number(),
  coherence: z.number(),
  priority: z.number(),
  related_chains: z.array(z.string()),
  extraction_candidate: z.boolean(),
  /** 2-D projection of each item for the cluster map, keyed by item id (x, y in -1..1). */
  layout: z.record(z.string(), z.tuple([z.number(), z.number()])).optional(),
  /** Who wrote `topic_label` (the rules: its top keywords). */
  extractor: Extractor.optional(),
});
export type TopicCluster = z.infer<typeof TopicCluster>;

// ---------------------------------------------------------------------------------------------
// Track B: chains

export const ChainType = z.enum(['CAUSAL', 'LOGIC', 'OPERATION', 'NARRATIVE', 'TIME']);
export type ChainType = z.infer<typeof ChainType>;

/**
 * One step of a chain. Roles by type: CAUSAL problem|cause|solution|effect, LOGIC
 * premise|inference|conclusion, OPERATION action|result, NARRATIVE event, TIME moment.
 */
export const ChainNode = z.object({
  id: z.string(),
  role: z.string(),
  text: z.string(),
  message_ids: z.array(z.string()).min(1),
  /** ISO 8601 or the expression as written ("next Tuesday", "下午三点"), for TIME chains and dated events. */
  time: z.string().optional(),
});
export type ChainNode = z.infer<typeof ChainNode>;

/** The seed's ExtractedChain: ordered nodes, a confidence, the messages it came from, a summary. */
export const ExtractedChain = z.object({
  chain_id: z.string(),
  chain_type: ChainType,
  /** The source text the chain was read from (the seed's `content`). */
  content: z.string(),
  nodes: z.array(ChainNode).min(2),
  extraction_confidence: z.number(),
  created_at: z.string(),
  source_message_ids: z.array(z.string()).min(1),
  /** The seed's to_summary(): "problem → cause → solution" in one line. */
  summary: z.string(),
  /** How it was found: "rules" or "llm", and what matched. */
  metadata: z.record(z.string(), z.unknown()),
  /** Who extracted it. */
  extractor: Extractor.optional(),
});
export type ExtractedChain = z.infer<typeof ExtractedChain>;

// ---------------------------------------------------------------------------------------------
// Fusion

export const BucketChainLink = z.object({
  cluster_id: z.string(),
  chain_id: z.string(),
  /** content_match | time_window | semantic (the strongest signal that made the link). */
  link_type: z.string(),
  strength: z.number(),
  evidence: z.array(z.string()),
});
export type BucketChainLink = z.infer<typeof BucketChainLink>;

export const ValidationResult = z.object({
  validation_type: z.string(),
  passed: z.boolean(),
  confidence: z.number(),
  issues: z.array(z.string()),
  suggestions: z.array(z.string()),
  cluster_id: z.string().optional(),
  chain_id: z.string().optional(),
});
export type ValidationResult = z.infer<typeof ValidationResult>;

export const MultiDimensionSummary = z.object({
  topic_summary: z.string(),
  dominant_keywords: z.array(z.string()),
  causal_summary: z.string(),
  logic_summary: z.string(),
  operation_summary: z.string(),
  narrative_summary: z.string(),
  time_summary: z.string(),
  bucket_chain_relations: z.array(z.record(z.string(), z.unknown())),
  completeness_score: z.number(),
  consistency_score: z.number(),
});
export type MultiDimensionSummary = z.infer<typeof MultiDimensionSummary>;

export const TriggerFactors = z.object({
  bucket_ready: z.number(),
  chain_ready: z.number(),
  complementarity: z.number(),
  quality: z.number(),
});
export type TriggerFactors = z.infer<typeof TriggerFactors>;

/** Each factor's weight in the trigger's score (docs/SPEC.md#coordinated-trigger), for the engine and the views. */
export const TRIGGER_WEIGHTS: Readonly<TriggerFactors> = { bucket_ready: 0.3, chain_ready: 0.3, complementarity: 0.25, quality: 0.15 };

/** What the trigger's factors were computed from (coordinated-trigger.ts's computeFactors). */
export const TriggerEvidence = z.object({
  /** bucket_ready: items in extraction-candidate clusters, of all clustered items. */
  ready_items: z.number(),
  items: z.number(),
  /** chain_ready: the chains' mean extraction confidence × min(1, chains / chains_needed). */
  mean_chain_confidence: z.number(),
  chains: z.number(),
  chains_needed: z.number(),
  /** complementarity: clusters linked to a chain, of all clusters; chains linked to a cluster. */
  linked_clusters: z.number(),
  clusters: z.number(),
  linked_chains: z.number(),
  /** quality: mean cluster coherence and mean validation confidence (null when nothing was validated). */
  coherence: z.number(),
  validation: z.number().nullable(),
});
export type TriggerEvidence = z.infer<typeof TriggerEvidence>;

/** The seed's ExtractionAction, with the arithmetic spelled out so a person can check it. */
export const TriggerDecision = z.object({
  action: z.enum(['COORDINATED_EXTRACTION', 'WAIT']),
  confidence: z.number(),
  factors: TriggerFactors,
  threshold: z.number(),
  /** One line per factor and one for the decision, e.g. "bucket_ready 0.80 × 0.3 = 0.24" (English, for the CLI and logs). */
  explanation: z.array(z.string()),
  /** The counts each factor was computed from, so a view can explain it in its own language (absent in analyses stored before it was added). */
  evidence: TriggerEvidence.optional(),
});
export type TriggerDecision = z.infer<typeof TriggerDecision>;

/** `cairn sessions analyze --json` (docs/ARCHITECTURE.md#the-cli). */
export const SessionAnalysis = z.object({
  conversation_id: z.string(),
  buckets: z.record(BucketType, z.array(MemoryItem)),
  clusters: z.array(TopicCluster),
  chains: z.array(ExtractedChain),
  links: z.array(BucketChainLink),
  validations: z.array(ValidationResult),
  summary: MultiDimensionSummary,
  trigger: TriggerDecision,
  /** Which tracks ran, and whether the processor fell back to sequential (degraded) mode. */
  tracks: z.object({ a: z.boolean(), b: z.boolean(), degraded: z.boolean() }).optional(),
  timings_ms: z.record(z.string(), z.number()).optional(),
  /** With an LLM: what it answered and what fell back to the rules in this analysis. */
  llm: MemoryLlmReport.optional(),
});
export type SessionAnalysis = z.infer<typeof SessionAnalysis>;

// ---------------------------------------------------------------------------------------------
// Long-term memory

/**
 * The spec's three memory kinds plus the categories of its summarizer example
 * (docs/SPEC.md#long-term-memory); each is a folder under ctx://user/memories/.
 */
export const MemoryCategory = z.enum(['procedural', 'narrative', 'semantic', 'preference', 'event', 'entity', 'profile']);
export type MemoryCategory = z.infer<typeof MemoryCategory>;

export const LongTermMemory = z.object({
  id: z.string(),
  category: MemoryCategory,
  /** One line a person can read in a list. */
  title: z.string(),
  content: z.string(),
  keywords: z.array(z.string()),
  /** Messages this memory was drawn from (never empty for extracted memories). */
  message_ids: z.array(z.string()),
  conversation_id: z.string().optional(),
  chain_ids: z.array(z.string()).optional(),
  cluster_ids: z.array(z.string()).optional(),
  confidence: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
  /** The person edited or wrote it: a commit may propose changes to it but never merges into it by itself. */
  pinned: z.boolean().optional(),
});
export type LongTermMemory = z.infer<typeof LongTermMemory>;

/** Every change to long-term memory, kept in an append-only history. */
export const MemoryChange = z.object({
  at: z.string(),
  op: z.enum(['add', 'update', 'delete', 'none']),
  memory_id: z.string(),
  before: LongTermMemory.optional(),
  after: LongTermMemory.optional(),
  /** Why, in English (the CLI's words): "new fact", "merged with the similar memory "…" (0.91)", "edited by user". */
  reason: z.string(),
  /** Why, as a structure a view says in its own language (shared/memory-change-cause.ts); absent on lines written before it. */
  cause: ChangeCause.optional(),
  /** An update held for the person's review because the memory is pinned: the memory as it would become (op is 'none'). */
  proposed: LongTermMemory.optional(),
});
export type MemoryChange = z.infer<typeof MemoryChange>;
