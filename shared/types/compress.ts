/**
 * Chain-aware context compression (docs/SPEC.md#chain-aware-compression; the file format in
 * docs/ARCHITECTURE.md#the-cli): context blocks in, the blocks that fit a token budget out, with
 * the reasoning chains they carry kept whole where the strategy can. Field names follow the seed
 * and the `cairn compress` file format. These are zod schemas because they cross the contract (CLI
 * --json, web host, Electron IPC).
 */
import { z } from 'zod';

export const ContextPriority = z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']);
export type ContextPriority = z.infer<typeof ContextPriority>;

/**
 * Chain types as the seed's compressor spells them (lower case). The memory engine's ChainType
 * is upper case, so input is lower-cased first and either spelling is accepted.
 */
export const CompressionChainType = z.enum(['causal', 'logic', 'operation', 'narrative', 'time']);
export type CompressionChainType = z.infer<typeof CompressionChainType>;
const ChainTypeInput = z.preprocess((value) => (typeof value === 'string' ? value.toLowerCase() : value), CompressionChainType);

export const CompressionStrategy = z.enum(['priority', 'chain_aware', 'chain_integrity']);
export type CompressionStrategy = z.infer<typeof CompressionStrategy>;

/** Where a block's text came from, so an agent (or a person) can go back to it. */
export const BlockProvenance = z.object({
  source: z.string().optional(),
  uri: z.string().optional(),
  /** First and last line, 1-based, inclusive. */
  lines: z.tuple([z.number().int(), z.number().int()]).optional(),
  message_ids: z.array(z.string()).optional(),
  /** What a person calls it: the document (and section heading) or the conversation, as the search list titles it. */
  title: z.string().optional(),
});
export type BlockProvenance = z.infer<typeof BlockProvenance>;

const Score = z.number().min(0).max(1);

/** One block of context, every field filled in (see ContextBlockInput for what a file may omit). */
export const ContextBlock = z.object({
  id: z.string().min(1),
  /** What produced the block: the seed's ContextSource (short_term_memory, long_term_memory, resource, ...). */
  source: z.string(),
  priority: ContextPriority,
  content: z.string(),
  /** Tokens of `content` in the caller's units; counted with o200k_base when a file omits it. */
  token_count: z.number().int().nonnegative(),
  /** Ids of the chains this block belongs to; blocks sharing an id form that chain. */
  chain_links: z.array(z.string().min(1)),
  chain_types: z.array(CompressionChainType),
  relevance_score: Score,
  freshness_score: Score,
  provenance: BlockProvenance.optional(),
  /** A shorter text for the block, used when its chain has to be replaced by a summary. */
  summary: z.string().optional(),
});
export type ContextBlock = z.infer<typeof ContextBlock>;

/** A block as the `cairn compress` file gives it: token count and scores may be absent. */
export const ContextBlockInput = ContextBlock.extend({
  token_count: z.number().int().nonnegative().optional(),
  chain_links: z.array(z.string().min(1)).default([]),
  chain_types: z.array(ChainTypeInput).default([]),
  relevance_score: Score.default(0),
  freshness_score: Score.default(0),
});
export type ContextBlockInput = z.input<typeof ContextBlockInput>;

/** The `cairn compress <blocks.json>` file: `{"blocks": [...]}` with unique block ids. */
export const CompressInput = z.object({ blocks: z.array(ContextBlockInput) }).superRefine((input, ctx) => {
  const seen = new Set<string>();
  input.blocks.forEach((block, i) => {
    if (seen.has(block.id)) ctx.addIssue({ code: 'custom', path: ['blocks', i, 'id'], message: `duplicate block id ${JSON.stringify(block.id)}` });
    seen.add(block.id);
  });
});

/** A block in the output: whole, or shortened sentence-wise to fit (then `shortened` is true). */
export const KeptBlock = ContextBlock.extend({
  /** Position in the input; the output keeps the input order. */
  index: z.number().int(),
  /** The seed's CHAIN_AWARE score, reported under every strategy so they can be compared. */
  score: z.number(),
  shortened: z.boolean(),
  original_token_count: z.number().int(),
});
export type KeptBlock = z.infer<typeof KeptBlock>;

export const DroppedBlock = z.object({
  id: z.string(),
  index: z.number().int(),
  source: z.string(),
  priority: ContextPriority,
  token_count: z.number().int(),
  score: z.number(),
  chain_links: z.array(z.string()),
  /** True when the block's text is left out but the pack names it by reference, as a step of a chain it holds part of. */
  referenced: z.boolean().optional(),
  /** Where a referenced block's text is (only for referenced blocks). */
  provenance: BlockProvenance.optional(),
});
export type DroppedBlock = z.infer<typeof DroppedBlock>;

/** What one block contributed to a chain summary. */
export const SummaryPart = z.object({
  block_id: z.string(),
  content: z.string(),
  token_count: z.number().int(),
  /** The block's own token count. */
  original_token_count: z.number().int(),
  /** False when the whole block (or its whole given summary) went in. */
  shortened: z.boolean(),
  provenance: BlockProvenance.optional(),
});
export type SummaryPart = z.infer<typeof SummaryPart>;

/**
 * Chains that could not fit whole, replaced by one summary. Chains that share a block are
 * replaced together, so one replacement may cover several chain ids.
 */
export const ReplacedChain = z.object({
  chain_ids: z.array(z.string()),
  block_ids: z.array(z.string()),
  /** Input position of the first block; the summary stands where that block stood. */
  index: z.number().int(),
  /** `given`: the blocks' own `summary` fields; `extractive`: leading sentences of each block. */
  summary_source: z.enum(['given', 'extractive']),
  content: z.string(),
  token_count: z.number().int(),
  original_token_count: z.number().int(),
  parts: z.array(SummaryPart),
});
export type ReplacedChain = z.infer<typeof ReplacedChain>;

/**
 * whole: every block kept as is; shortened: every block kept, some shortened; summarized:
 * replaced by its summary; referenced: the blocks reserved for a pack's top hits kept, its other
 * steps too large for the room left and named by reference only (no text cut); partial: some
 * blocks kept, others dropped; dropped: no block kept.
 */
export const ChainStatus = z.enum(['whole', 'shortened', 'summarized', 'referenced', 'partial', 'dropped']);
export type ChainStatus = z.infer<typeof ChainStatus>;

export const ChainReport = z.object({ id: z.string(), block_ids: z.array(z.string()), status: ChainStatus });
export type ChainReport = z.infer<typeof ChainReport>;

export const CompressionResult = z.object({
  strategy: CompressionStrategy,
  /** The token budget the output was held to. */
  budget: z.number().int().nonnegative(),
  original_tokens: z.number().int(),
  /** Tokens of kept blocks plus chain summaries; never more than `budget`. */
  compressed_tokens: z.number().int(),
  /** In input order. */
  kept: z.array(KeptBlock),
  dropped: z.array(DroppedBlock),
  replaced: z.array(ReplacedChain),
  /** Every chain of the input, in order of first appearance. */
  chains: z.array(ChainReport),
  /** Chains whose blocks were all kept (whole or shortened), replaced by their summary, or kept in part with the rest named by reference. */
  intact_chains: z.array(z.string()),
  /** Every other chain: cut (partial) or lost entirely (dropped). */
  broken_chains: z.array(z.string()),
});
export type CompressionResult = z.infer<typeof CompressionResult>;
