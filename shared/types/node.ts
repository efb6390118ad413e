import { z } from 'zod';
import { Skip } from './ingest.js';

export const ContextType = z.enum(['resource', 'memory', 'skill', 'session']);
export type ContextType = z.infer<typeof ContextType>;

/** Where a node's summary stands. `owed` means a summary is wanted and no summarizer has run yet. */
export const SummaryStatus = z.enum(['none', 'owed', 'pending', 'done', 'fallback', 'failed']);
export type SummaryStatus = z.infer<typeof SummaryStatus>;

/** Provenance: where a node's text came from. */
export const Provenance = z.object({
  source: z.string().optional(),
  /** 1-based inclusive line range in the source file, where known. */
  lines: z.tuple([z.number().int(), z.number().int()]).optional(),
  /** PDF pages, 1-based inclusive, where known. */
  pages: z.tuple([z.number().int(), z.number().int()]).optional(),
  message_ids: z.array(z.string()).optional(),
});
export type Provenance = z.infer<typeof Provenance>;

/**
 * Who wrote a node's L0/L1: the extractive summarizer, the code skeleton alone (`ast-skeleton`),
 * an LLM (its model and the prompt version, `SUMMARY_PROMPT_VERSION` in
 * main/engine/summarize/llm-summarizer.ts), or the seed's fallback. `cairn summarize --upgrade`
 * redoes what a weaker one wrote (main/engine/summarize/provenance.ts).
 */
export const SummarizerProvenance = z.object({
  kind: z.enum(['llm', 'extractive', 'ast-skeleton', 'fallback']),
  model: z.string().optional(),
  prompt_version: z.number().int().optional(),
});
export type SummarizerProvenance = z.infer<typeof SummarizerProvenance>;

/**
 * The `.meta.json` of a directory node, or the `{name}.meta.json` of a file node.
 * Files also carry their own L0 (`abstract`) and L1 (`overview`) here when they have them.
 */
export const NodeMeta = z
  .object({
    uri: z.string(),
    kind: z.enum(['file', 'dir']),
    context_type: ContextType,
    /** Absolute path of the source file or folder this node came from. */
    source_path: z.string().optional(),
    /** On an ingest root: every source that fed it (a folder by path, its upload), so a later ingest of any of them updates it in place. */
    sources: z.array(z.string()).optional(),
    /** On the root of a git repository's tree: where it was cloned from, the ref and the commit its files are from. */
    git: z.object({ remote: z.string(), ref: z.string(), commit: z.string() }).optional(),
    /** sha256 of the node's own content (files) or of its source document (split documents). */
    content_hash: z.string().optional(),
    /** For directories: a hash over the children's hashes, so a subtree's change is seen at its root. */
    tree_hash: z.string().optional(),
    /** sha256 of the source file's bytes, on the node that stands for a whole source file. */
    source_hash: z.string().optional(),
    /** The source file's mtime when it was read: with the same size, a later ingest trusts source_hash without reading the file. */
    source_mtime_ms: z.number().optional(),
    /** Nodes in this source file's subtree (1 for a file kept whole). */
    node_count: z.number().int().optional(),
    /** On an ingest root: what the scan and the parsers left out, and why (capped; see skipped_total). */
    skipped: z.array(Skip).optional(),
    skipped_total: z.number().int().optional(),
    /** On an ingest root: why it was added (`cairn ingest --reason`, MCP's add_resource). */
    reason: z.string().optional(),
    parser: z.string().optional(),
    source_format: z.string().optional(),
    language: z.string().optional(),
    tokens: z.number().int().nonnegative().optional(),
    bytes: z.number().int().nonnegative().optional(),
    category: z.string().optional(),
    provenance: Provenance.optional(),
    /** The heading the node opens with (a document's first heading, a section's own), where it has one. */
    title: z.string().optional(),
    /** Set on directories that stand for one split document (the document's sections are its children). */
    document: z.boolean().optional(),
    abstract: z.string().optional(),
    overview: z.string().optional(),
    summary_status: SummaryStatus.optional(),
    /** Why a summary is owed or how it was made (e.g. "file under 100 lines", "skeleton", "fallback"). */
    summary_reason: z.string().optional(),
    /** Who wrote the L0/L1 (absent on metas written before it was recorded: see provenance.ts). */
    summarizer: SummarizerProvenance.optional(),
    /** For directories: the tree hash the current summary was made from (stale when it differs from tree_hash). */
    summarized_tree_hash: z.string().optional(),
    /** For summarized directories: the categories of their children, and how many children there were. */
    categories: z.array(z.string()).optional(),
    child_count: z.number().int().optional(),
    /** A code file's skeleton, kept as context for an LLM summary (ast_llm mode). */
    skeleton_text: z.string().optional(),
    warnings: z.array(z.string()).optional(),
    created_at: z.string(),
    updated_at: z.string(),
    /**
     * On a file summarized after it was indexed: the time its content (L2) was written, which its
     * L2 index record carries (a new L0/L1 changes updated_at, not the content: see node-records.ts).
     */
    content_updated_at: z.string().optional(),
  })
  .passthrough();
export type NodeMeta = z.infer<typeof NodeMeta>;

/** One line of a directory listing. */
export const NodeEntry = z.object({
  uri: z.string(),
  name: z.string(),
  kind: z.enum(['file', 'dir']),
  /** The heading it opens with (meta.title): a document's title beside its file name. */
  title: z.string().optional(),
  abstract: z.string().optional(),
  tokens: z.number().optional(),
  bytes: z.number().optional(),
  summary_status: SummaryStatus.optional(),
});
export type NodeEntry = z.infer<typeof NodeEntry>;

export const NodeStat = z.object({
  uri: z.string(),
  kind: z.enum(['file', 'dir']),
  bytes: z.number(),
  children: z.number().optional(),
  has_abstract: z.boolean(),
  has_overview: z.boolean(),
  meta: NodeMeta.nullable(),
});
export type NodeStat = z.infer<typeof NodeStat>;

export interface TreeNode {
  uri: string;
  name: string;
  kind: 'file' | 'dir';
  abstract?: string;
  tokens?: number;
  /** Where the node's summary stands (from its meta), so a view can draw a tree's states in one call. */
  summary_status?: SummaryStatus;
  summary_reason?: string;
  /** A split document (its children are the document's sections), not a folder of the source. */
  document?: boolean;
  children?: TreeNode[];
  /** Children left out because of the depth or width limit. */
  truncated?: number;
}
export const TreeNode: z.ZodType<TreeNode> = z.lazy(() =>
  z.object({
    uri: z.string(),
    name: z.string(),
    kind: z.enum(['file', 'dir']),
    abstract: z.string().optional(),
    tokens: z.number().optional(),
    summary_status: SummaryStatus.optional(),
    summary_reason: z.string().optional(),
    document: z.boolean().optional(),
    children: z.array(TreeNode).optional(),
    truncated: z.number().optional(),
  }),
);
