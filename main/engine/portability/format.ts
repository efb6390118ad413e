/**
 * The shapes of a Cairn export (docs/ARCHITECTURE.md#export-and-import), shared by the writers and
 * the readers.
 *
 * - json: one document `{format: "cairn-export", version, exported_at, scope, memories,
 *   memory_history, sessions, analyses, nodes}`.
 * - jsonl: the same data, one typed record per line, a `header` first:
 *   `{"type":"memory","memory":{...}}`, `memory_change`, `conversation`, `analysis` (without its
 *   clusters and chains), `cluster`, `chain` (each with its conversation_id), `node`.
 * - markdown: a folder with index.md, memories/{category}.md, conversations/{id}.md, and
 *   data.jsonl (the jsonl records, which import reads).
 * - contextfs: a copy of the scope folders with their sidecars, and cairn-export.json.
 *
 * Provenance travels with the data: memories name their messages and conversation, chains and
 * cluster items their source messages, nodes keep their `.meta.json` (source path, lines, hashes).
 */
import { z } from 'zod';
import { Conversation, ExtractedChain, LongTermMemory, MemoryChange, SessionAnalysis, TopicCluster } from '../../../shared/types/memory.js';

export const EXPORT_TAG = 'cairn-export';
export const EXPORT_VERSION = 1;
/** The manifest of a folder export (contextfs, markdown). */
export const MANIFEST_FILE = 'cairn-export.json';
/** The machine-readable twin of a Markdown bundle. */
export const BUNDLE_DATA_FILE = 'data.jsonl';
/** Scope folders a ContextFS export copies; `temp` and `.cairn/` never leave the workspace. */
export const PORTABLE_SCOPES = ['resources', 'user', 'agent', 'session'] as const;
export type PortableScope = (typeof PORTABLE_SCOPES)[number];

/** One ContextFS node: a file with its content, or a directory with its L0/L1; `meta` is its `.meta.json` as written. */
export const NodeRecord = z.object({
  uri: z.string().min(6),
  kind: z.enum(['file', 'dir']),
  /** A file's content (L2): UTF-8 text, or base64 when the bytes are not UTF-8. */
  content: z.string().optional(),
  encoding: z.enum(['utf8', 'base64']).optional(),
  /** A directory's `.abstract.md` (L0) and `.overview.md` (L1); a file keeps its own in `meta`. */
  abstract: z.string().optional(),
  overview: z.string().optional(),
  meta: z.record(z.string(), z.unknown()).optional(),
});
export type NodeRecord = z.infer<typeof NodeRecord>;

/**
 * A stored session analysis as written (the processor's output, kept whole), with the cache key
 * that tells sessions:analyze it is current.
 */
export const AnalysisEntry = z.looseObject({ conversation_id: z.string().min(1), cache_key: z.string().nullable().default(null) });
export type AnalysisEntry = z.infer<typeof AnalysisEntry>;

export const ExportDocument = z.object({
  format: z.literal(EXPORT_TAG),
  version: z.literal(EXPORT_VERSION),
  exported_at: z.string(),
  scope: z.enum(PORTABLE_SCOPES).nullable().default(null),
  memories: z.array(LongTermMemory).default([]),
  memory_history: z.array(MemoryChange).optional(),
  /** The conversations (Cairn conversation JSON, message ids kept). */
  sessions: z.array(Conversation).default([]),
  /** One per analyzed conversation: its topic clusters, chains and the rest of the analysis. */
  analyses: z.array(AnalysisEntry).default([]),
  nodes: z.array(NodeRecord).optional(),
});
export type ExportDocument = z.infer<typeof ExportDocument>;

const withConversation = { conversation_id: z.string().min(1) };

export const ExportRecord = z.discriminatedUnion('type', [
  z.object({ type: z.literal('header'), format: z.literal(EXPORT_TAG), version: z.literal(EXPORT_VERSION), exported_at: z.string(), scope: z.enum(PORTABLE_SCOPES).nullable().default(null) }),
  z.object({ type: z.literal('memory'), memory: LongTermMemory }),
  z.object({ type: z.literal('memory_change'), change: MemoryChange }),
  z.object({ type: z.literal('conversation'), conversation: Conversation }),
  z.object({ type: z.literal('analysis'), ...withConversation, cache_key: z.string().nullable().default(null), analysis: z.record(z.string(), z.unknown()) }),
  // Kept as written (checked with the whole analysis by checkAnalysis), so no field is dropped on the way.
  z.object({ type: z.literal('cluster'), ...withConversation, cluster: z.looseObject({ cluster_id: TopicCluster.shape.cluster_id }) }),
  z.object({ type: z.literal('chain'), ...withConversation, chain: z.looseObject({ chain_id: ExtractedChain.shape.chain_id }) }),
  z.object({ type: z.literal('node'), node: NodeRecord }),
]);
export type ExportRecord = z.infer<typeof ExportRecord>;

/** Everything an export carries, whatever its format. */
export interface ExportData {
  exported_at: string;
  scope: PortableScope | null;
  memories: LongTermMemory[];
  history: MemoryChange[];
  conversations: Conversation[];
  analyses: AnalysisEntry[];
  nodes: NodeRecord[];
}

/** Checks an analysis entry against the analysis schema (extra fields are kept, not checked). */
export function checkAnalysis(entry: AnalysisEntry): string | null {
  const { cache_key: _key, ...analysis } = entry;
  const result = SessionAnalysis.safeParse(analysis);
  if (result.success) return null;
  const issue = result.error.issues[0];
  return `${issue?.path.join('.') || '(analysis)'}: ${issue?.message}`;
}

/** JSON with object keys sorted: equal data gives equal text whatever order the keys were written in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
