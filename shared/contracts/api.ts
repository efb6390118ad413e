/**
 * The one contract: every command (request -> response) and every event that the CLI, the
 * worker RPC, Electron IPC and the web host carry. Inputs are validated with these schemas at
 * each boundary; only plain data crosses.
 *
 * Command names are `domain:verb`; event types are `domain/past-tense`.
 *
 * Long file: the one table of every command, so each host derives its calls from one place.
 */
import { z } from 'zod';
import { CairnError } from '../errors.js';
import { KeptCause } from '../import-kept-cause.js';
import { ChangeCause } from '../memory-change-cause.js';
import { IngestOptions, IngestResult, Skip } from '../types/ingest.js';
import { NodeEntry, NodeStat, TreeNode } from '../types/node.js';
import { SkillSummary } from '../types/skill.js';
import { LongTermMemory as LongTermMemorySchema, MemoryCategory as MemoryCategorySchema, MemoryChange as MemoryChangeSchema } from '../types/memory.js';
import { Conversation as ConversationSchema, Extractor as ExtractorSchema, MemoryChange as SessionMemoryChange, MemoryLlmReport as MemoryLlmReportSchema, SessionAnalysis as SessionAnalysisSchema } from '../types/memory.js';
import { CompressInput, CompressionResult, CompressionStrategy, ContextBlock } from '../types/compress.js';
import { SCOPES } from '../uri.js';
import { DEFAULT_LLM_MODEL, LLM_LIMITS } from './llm-limits.js';
import { CauseCounts, StoredCause } from '../llm-cause.js';

export { DEFAULT_LLM_MODEL, LLM_LIMITS };

const Uri = z.string().min(6).max(4096);
const Level = z.union([z.literal(0), z.literal(1), z.literal(2)]);

/**
 * Counts every DAG event carries, so a view can draw totals without keeping its own. `dirs_*` and
 * `files_*` count nodes; split documents (directory nodes) and their sections (file nodes) are
 * also counted apart, so views name them as a person does (shared/tree-counts.ts).
 */
export const DagCounts = z.object({
  dirs_total: z.number(),
  dirs_done: z.number(),
  files_total: z.number(),
  files_done: z.number(),
  documents_total: z.number().optional(),
  documents_done: z.number().optional(),
  sections_total: z.number().optional(),
  sections_done: z.number().optional(),
  llm_calls: z.number(),
});
export type DagCounts = z.infer<typeof DagCounts>;

export const DagRunResult = DagCounts.extend({
  root: z.string(),
  dirsSummarized: z.number(),
  dirsReused: z.number(),
  filesSummarized: z.number(),
  fallbacks: z.number(),
  failed: z.number(),
  tokens: z.number(),
  ms: z.number(),
  /** Why the run's fallbacks fell back, grouped (shared/llm-cause.ts), with counts. */
  fallback_causes: CauseCounts.optional(),
});
export type DagRunResult = z.infer<typeof DagRunResult>;

export const SearchMode = z.enum(['hybrid', 'fts', 'vector', 'hierarchical']);
export type SearchMode = z.infer<typeof SearchMode>;

/** One search result: the node's best level for the query, with where its text came from. */
export const SearchHit = z.object({
  uri: z.string(),
  level: Level,
  score: z.number(),
  snippet: z.string(),
  /** The parts of `snippet` to mark as matching the query: [start, end) UTF-16 offsets, in order. */
  highlights: z.array(z.tuple([z.number().int(), z.number().int()])),
  context_type: z.string(),
  category: z.string(),
  provenance: z.object({
    source: z.string().nullable(),
    lines: z.tuple([z.number(), z.number()]).nullable(),
    message_ids: z.array(z.string()),
  }),
  /**
   * For a conversation message that is a hit only as the neighbour of another (the message before
   * or after it): that hit's message id, at the same URI. The ranked list shows it under that hit,
   * as its context, never as a result of its own.
   */
  neighbour_of: z.string().optional(),
});
export type SearchHit = z.infer<typeof SearchHit>;

/**
 * The search response as a person reads it (main/engine/index/rank.ts shapes it; the app, the CLI
 * and MCP show it): one list by relevance, one entry per document, with the hits of its sections
 * and of its own L0/L1 under it, best first.
 */
export const RankedHit = SearchHit.extend({
  /** The section's heading (for content that opens with one), else null. */
  heading: z.string().nullable(),
  /** Other nodes with exactly this content, collapsed into this hit. */
  also_at: z.array(z.string()),
});
export type RankedHit = z.infer<typeof RankedHit>;

export const RankedResult = z.object({
  /** The document: a split document's directory, a file, a directory, or a session file for a message. */
  uri: z.string(),
  /** The document's title (its first heading, else its file name), never a section's file name. */
  title: z.string(),
  /** Its best hit's score. */
  score: z.number(),
  scope: z.string(),
  /** True below the relevance floor (`weak_below`): shown apart as weak matches. */
  weak: z.boolean(),
  /**
   * Best first; the first is the one to show, the rest are "N more sections". Then, for a
   * conversation message, the neighbouring messages it brought in (`neighbour_of`), as its context.
   */
  hits: z.array(RankedHit).min(1),
  /** Other documents whose matching content is identical, collapsed into this one. */
  also_at: z.array(z.string()),
});
export type RankedResult = z.infer<typeof RankedResult>;

export const SearchResponse = z.object({
  /** The index's hits as ranked (one per node and level), for clients that want the raw list. */
  hits: z.array(SearchHit),
  /** The same hits merged by document, de-duplicated and ranked: what to show. */
  ranked: z.array(RankedResult),
  /** The relevance floor of this search's mode: results scoring below it are `weak`. */
  weak_below: z.number(),
});
export type SearchResponse = z.infer<typeof SearchResponse>;

/** What summarizing a tree with an LLM would take (main/engine/summarize/estimate.ts). */
export const SummaryEstimate = z.object({
  root: z.string(),
  files: z.number().int(),
  directories: z.number().int(),
  reused_directories: z.number().int(),
  calls: z.number().int(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
});
export type SummaryEstimate = z.infer<typeof SummaryEstimate>;

/** summarize:estimate's answer per tree: the estimate, priced when the model's list price is known. */
export const PricedEstimate = SummaryEstimate.extend({
  /** USD at list price for the settings' model; null when its price is unknown. */
  cost_usd: z.number().nullable().optional(),
});
export type PricedEstimate = z.infer<typeof PricedEstimate>;

/** What the engine notes on an ingest root's meta (`last_ingest`) each time it is ingested. */
export const LastIngest = z.object({
  at: z.string(),
  files: z.number().int(),
  bytes: z.number(),
  skipped: z.number().int(),
});
export type LastIngest = z.infer<typeof LastIngest>;

/** The last summary run over an ingested root, noted on its meta (`last_summary`) so Home's badge outlives a restart. */
export const LastSummaryRun = z.object({
  at: z.string(),
  fallbacks: z.number().int(),
  fallback_causes: CauseCounts.optional(),
});
export type LastSummaryRun = z.infer<typeof LastSummaryRun>;

/** Where an ingested tree's summaries stand: from the outbox while queued, else from the root's meta. */
export const RecentIngestState = z.enum(['queued', 'summarizing', 'summarized', 'failed', 'unsummarized']);
export type RecentIngestState = z.infer<typeof RecentIngestState>;

/** One folder (or file) ingested into this workspace, for the Home view's "Recent" list. */
export const RecentIngest = z.object({
  root: z.string(),
  scope: z.string(),
  name: z.string(),
  /** The absolute path it was ingested from (on the engine's machine), or its git repository's URL. */
  source: z.string(),
  /** A git repository's tree: the ref it follows (ingest it again with `git: { ref }`). */
  git: z.object({ ref: z.string() }).optional(),
  kind: z.enum(['file', 'dir']),
  /** When it was last ingested (or, for trees ingested before this was noted, last changed). */
  at: z.string(),
  /** Files kept by the last ingest; null when not noted. */
  files: z.number().int().nullable(),
  state: RecentIngestState,
  /** The last summary run's fallbacks and their causes, when one was noted. */
  summary: LastSummaryRun.optional(),
});
export type RecentIngest = z.infer<typeof RecentIngest>;

const MemoryId = z.string().min(1).max(200);

/** What the sessions processor (and `cairn mcp remember`) proposes; main/engine/memory/long-term/types.ts MemoryCandidate. */
export const MemoryCandidateSchema = z.object({
  category: MemoryCategorySchema,
  title: z.string().min(1).max(1000),
  content: z.string().min(1).max(100_000),
  keywords: z.array(z.string().max(200)).max(200).default([]),
  message_ids: z.array(z.string().min(1)).min(1),
  conversation_id: z.string(),
  chain_ids: z.array(z.string()).optional(),
  cluster_ids: z.array(z.string()).optional(),
  confidence: z.number().min(0).max(1),
  /** The person wrote or accepted it (never an agent's or the trigger's own): its memory is pinned. */
  pinned: z.boolean().optional(),
  /** Who extracted what it came from: the rules, or an LLM (and which). */
  extractor: ExtractorSchema.optional(),
});

/** A conversation in the workspace under ctx://session/{id}/ (main/engine/memory/sessions/workspace-store.ts). */
export const StoredConversation = z.object({
  id: z.string(),
  uri: z.string(),
  title: z.string().optional(),
  source_format: z.string().optional(),
  source_path: z.string().optional(),
  sessions: z.number().int(),
  messages: z.number().int(),
  imported_at: z.string(),
  /** An analysis is stored next to it (sessions:analyze says whether it is still current). */
  analyzed: z.boolean(),
});
export type StoredConversation = z.infer<typeof StoredConversation>;

export const ImportedConversation = StoredConversation.omit({ imported_at: true, analyzed: true }).extend({
  /** The same messages were already imported: nothing was written. */
  unchanged: z.boolean(),
  /** Message records handed to the index. */
  records: z.number().int(),
});
export type ImportedConversation = z.infer<typeof ImportedConversation>;

/** What committing an analyzed conversation to long-term memory did, and why (the trigger's lines). */
export const SessionCommitResult = z.object({
  conversation_id: z.string(),
  uri: z.string(),
  action: z.enum(['COORDINATED_EXTRACTION', 'WAIT']),
  confidence: z.number(),
  explanation: z.array(z.string()),
  /** Memory candidates derived from the analysis (0 when the trigger waits). */
  candidates: z.number().int(),
  changes: z.array(SessionMemoryChange),
  /** With an LLM: what it answered and what fell back to the rules (the analysis, if it ran now, and the dedup decisions). */
  llm: MemoryLlmReportSchema.optional(),
});
export type SessionCommitResult = z.infer<typeof SessionCommitResult>;

//#region Review before commit (issue 17, item 4; main/engine/memory/processor/review.ts)
/** One memory the trigger proposes from a conversation, and what accepting it would do. */
export const ProposedCandidate = z.object({
  /** Stable for the same analysis: names the candidate in sessions:accept and sessions:reject. */
  id: z.string(),
  /** add: a new memory; merge: joins an existing one; update: changes a pinned memory (before/after), only if you accept it. */
  kind: z.enum(['add', 'merge', 'update']),
  candidate: MemoryCandidateSchema,
  /** The trigger would commit it without review (`cairn sessions commit --yes`). */
  auto: z.boolean(),
  /** The memory it merges into or updates, as it is and as it would be. */
  before: LongTermMemorySchema.optional(),
  after: LongTermMemorySchema.optional(),
  /** Why accepting it does what `kind` says, in English (the CLI's words) and as a structure (the view's). */
  reason: z.string(),
  cause: ChangeCause.optional(),
});
export type ProposedCandidate = z.infer<typeof ProposedCandidate>;

export const SessionProposal = SessionCommitResult.omit({ candidates: true, changes: true }).extend({
  candidates: z.array(ProposedCandidate),
  /** Candidates left out because you rejected them before (same category and source messages). */
  rejected: z.number().int(),
  /** Candidates left out because memory already holds them. */
  known: z.number().int(),
});
export type SessionProposal = z.infer<typeof SessionProposal>;
//#endregion

/** sessions:analyze: the analysis plus whether it came from the cache, and where it is stored (null for a file analyzed in place). */
export const SessionAnalysisResult = SessionAnalysisSchema.extend({ cached: z.boolean(), uri: z.string().nullable() });
export type SessionAnalysisResult = z.infer<typeof SessionAnalysisResult>;

//#region sessions:stats: the memory processor's monitoring report and chain buffer (main/engine/memory/processor/stats.ts)
const HealthStatusSchema = z.enum(['healthy', 'degraded', 'failed']);
const StageStatsSchema = z.object({ count: z.number().int(), total_ms: z.number(), mean_ms: z.number(), min_ms: z.number(), max_ms: z.number(), last_ms: z.number() });
export const SessionStats = z.object({
  generated_at: z.string(),
  /** How the next analysis runs: both tracks at once on workers, or one after the other in the engine's thread. */
  mode: z.enum(['parallel', 'sequential']),
  degraded: z.boolean(),
  runner: z.string(),
  /** The worst component status. */
  overall: HealthStatusSchema,
  /** Timings per stage (track_a, track_b, fusion stages, total…) over every analysis in this workspace. */
  stages: z.record(z.string(), StageStatsSchema),
  /** The analysis cache: hits count analyses served from memory or from the copy stored with the conversation. */
  cache: z.object({
    size: z.number().int(),
    max_entries: z.number().int(),
    ttl_ms: z.number(),
    hits: z.number().int(),
    misses: z.number().int(),
    evictions: z.number().int(),
    expirations: z.number().int(),
    hit_rate: z.number(),
  }),
  health: z.record(z.string(), z.object({ status: HealthStatusSchema, detail: z.string(), since: z.string() })),
  counters: z.record(z.string(), z.number()),
  /** The LLM's fallbacks to the rules in this workspace, by cause (counted as `llm_fallbacks_{stage}` in counters). */
  llm_fallback_causes: CauseCounts,
  /** Chains waiting in the ChainBuffer (per conversation, until committed or expired). */
  buffer: z.object({
    ttl_ms: z.number(),
    chains: z.number().int(),
    conversations: z.array(
      z.object({
        conversation_id: z.string(),
        chains: z.number().int(),
        by_type: z.record(z.string(), z.number().int()),
        /** The first few chains' one-line summaries. */
        summaries: z.array(z.string()),
        expires_at: z.string(),
      }),
    ),
  }),
});
export type SessionStats = z.infer<typeof SessionStats>;
//#endregion

/**
 * Formats of `export:run` (docs/ARCHITECTURE.md#export-and-import); `import:run` detects which one
 * it is given.
 */
export const ExportFormat = z.enum(['contextfs', 'json', 'jsonl', 'markdown']);
export type ExportFormat = z.infer<typeof ExportFormat>;

/** What an export wrote (main/engine/portability). */
export const ExportResult = z.object({
  format: ExportFormat,
  out: z.string(),
  /** Files written (1 for json and jsonl). */
  files: z.number().int(),
  bytes: z.number().int(),
  memories: z.number().int(),
  conversations: z.number().int(),
  chains: z.number().int(),
  clusters: z.number().int(),
  nodes: z.number().int(),
  ms: z.number(),
});
export type ExportResult = z.infer<typeof ExportResult>;

const PortabilityCounts = z.object({
  memories: z.number().int(),
  history: z.number().int(),
  conversations: z.number().int(),
  analyses: z.number().int(),
  nodes: z.number().int(),
});

/** What an import merged: per kind, what was new, what replaced an older version, what was already there. */
export const ImportResult = z.object({
  format: ExportFormat,
  path: z.string(),
  added: PortabilityCounts,
  updated: PortabilityCounts,
  unchanged: PortabilityCounts,
  /** Items the workspace keeps over the imported ones (a newer local version, a memory the user forgot), each with why. */
  kept: z.array(z.object({ id: z.string(), reason: z.string(), cause: KeptCause.optional() })),
  ms: z.number(),
});
export type ImportResult = z.infer<typeof ImportResult>;

//#region LLM settings and the LLM monitor (main/engine/settings)
/** A whole number within one of the limits of llm-limits.ts, its messages naming the bound. */
const wholeIn = (limit: { min: number; max: number }, unit = '') =>
  z.number().int('must be a whole number').min(limit.min, `must be at least ${limit.min}${unit}`).max(limit.max, `must be at most ${limit.max}${unit}`);
const llmSettingsFields = {
  /** Off: summaries are extractive and offline whatever else is set. */
  enabled: z.boolean(),
  /** An OpenAI-compatible server ('' for api.openai.com). */
  baseUrl: z
    .string()
    .trim()
    .max(2048)
    .refine((v) => v === '' || /^https?:\/\/[^\s/?#]+(?:[/?#]\S*)?$/i.test(v), { message: 'must be an http:// or https:// URL' }),
  model: z.string().trim().min(1, 'must name a model').max(200),
  /** LLM calls in flight at most. */
  maxConcurrent: wholeIn(LLM_LIMITS.maxConcurrent),
  /** Tokens (input + output) one summary run may spend; null: no limit. */
  tokenBudget: wholeIn(LLM_LIMITS.tokenBudget).nullable(),
  /** Bound on one request in ms. */
  timeoutMs: wholeIn(LLM_LIMITS.timeoutMs, ' ms'),
};
/** Every setting that may be written to `<workspace>/.cairn/settings.json`: never the API key. */
export const LlmSettings = z.object(llmSettingsFields);
/** Some settings to change; the others keep their values. */
export const LlmSettingsPatch = z.object(llmSettingsFields).partial().strict();
export const DEFAULT_LLM_SETTINGS: LlmSettings = {
  enabled: false,
  baseUrl: '',
  model: DEFAULT_LLM_MODEL,
  maxConcurrent: LLM_LIMITS.maxConcurrent.default,
  tokenBudget: null,
  timeoutMs: LLM_LIMITS.timeoutMs.default,
};
export type LlmSettings = z.infer<typeof LlmSettings>;

/** The memory tracks the app's analyses run (docs/SPEC.md#dual-track-memory: each can be switched off on its own). */
export const MemorySettings = z.object({ trackA: z.boolean(), trackB: z.boolean() });
export const MemorySettingsPatch = MemorySettings.partial().strict();
export const DEFAULT_MEMORY_SETTINGS: MemorySettings = { trackA: true, trackB: true };
export type MemorySettings = z.infer<typeof MemorySettings>;

/** What settings:get shows: the settings, and about the key only whether one is set. */
export const SettingsView = z.object({
  llm: LlmSettings,
  memory: MemorySettings,
  apiKey: z.object({
    set: z.boolean(),
    /** The key's last 4 characters, when it is long enough to keep the rest secret. */
    last4: z.string().max(4).nullable(),
    /** Where the host keeps it: encrypted by the OS (Electron), or in memory until the host stops. */
    storage: z.enum(['encrypted', 'memory']),
  }),
  /** What new summary runs use. */
  summarizer: z.enum(['llm', 'extractive']),
});
export type SettingsView = z.infer<typeof SettingsView>;

export const LlmCallRecord = z.object({
  at: z.string(),
  ms: z.number(),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** 'ok', or the error code of the failure. */
  outcome: z.string(),
  /** Why a failed call failed (shared/llm-cause.ts): an HTTP status and the server's message, a timeout, invalid JSON with how the answer began; a string when recorded before causes were structured. */
  cause: StoredCause.optional(),
});
export type LlmCallRecord = z.infer<typeof LlmCallRecord>;

export const LlmStatsView = z.object({
  active: z.boolean(),
  model: z.string().nullable(),
  /** The server the model answers from; null for the provider's default (api.openai.com) or without an LLM. */
  baseUrl: z.string().nullable(),
  calls: z.number().int(),
  inFlight: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  retries: z.number().int(),
  fallbacks: z.number().int(),
  /** Why summaries fell back (an error code such as LLM_BUDGET_EXHAUSTED), with counts. */
  fallbackReasons: z.record(z.string(), z.number()),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  /** USD at list price; null when the model's price is unknown. */
  costUsd: z.number().nullable(),
  breaker: z.enum(['closed', 'open', 'half-open']).nullable(),
  /**
   * The current (or last) run's budget; null without one. `used` counts the tokens held by calls
   * in flight too, `spent` only settled calls; `refusals` are calls refused for lack of budget.
   */
  budget: z
    .object({ maxTokens: z.number(), used: z.number(), left: z.number(), spent: z.number(), refusals: z.number().int(), exhausted: z.boolean() })
    .nullable(),
  errors: z.record(z.string(), z.number()),
  /** The latest calls, newest first (bounded). */
  recent: z.array(LlmCallRecord).max(200),
});
export type LlmStatsView = z.infer<typeof LlmStatsView>;
//#endregion

export const commands = {
  'ingest:start': {
    request: z.object({
      /** Absolute path of a folder or file on the engine's machine; with `git`, the repository's URL. */
      path: z.string().min(1).max(4096),
      /**
       * Clone `path` (https, ssh, git, file URL or a local repository) with the system git and
       * ingest the checkout of `ref` (a branch, tag or commit; default: the default branch) as
       * `ctx://<scope>/<repository name>/`. A later ingest of the same URL updates that tree.
       */
      git: z.object({ ref: z.string().max(256).optional() }).optional(),
      options: IngestOptions.partial().optional(),
      /** Client-chosen job id, so the caller can cancel before the response arrives. */
      jobId: z.string().min(1).max(128).optional(),
      /**
       * false: build the tree only and hold its summaries queued (no background run takes them)
       * until summarize:run names it (the CLI's --no-summarize / --estimate). Default true.
       */
      summarize: z.boolean().optional(),
      /**
       * true: the caller runs summarize:run on this tree right after (the CLI), and that run
       * optimizes the index when it ends, so the ingest leaves the index's optimize to it (one
       * compaction and index rebuild instead of two back to back). Default false.
       */
      summaryFollows: z.boolean().optional(),
    }),
    response: IngestResult,
  },
  'ingest:recent': {
    request: z.object({ limit: z.number().int().min(1).max(200).default(20) }),
    /** Ingested roots of every ingest scope, most recently ingested first. */
    response: z.object({ items: z.array(RecentIngest) }),
  },
  'ingest:cancel': {
    request: z.object({ jobId: z.string().min(1).max(128) }),
    response: z.object({ cancelled: z.boolean() }),
  },
  //#region The bundled sample folder (main/engine/ingest/sample.ts)
  'ingest:sample': {
    request: z.object({}),
    /** Where the sample folder Cairn ships is on the engine's machine, to ingest it with ingest:start. */
    response: z.object({ path: z.string() }),
  },
  //#endregion
  'fs:ls': {
    request: z.object({ uri: Uri }),
    response: z.object({ uri: z.string(), entries: z.array(NodeEntry) }),
  },
  'fs:read': {
    request: z.object({ uri: Uri, level: Level.default(2) }),
    response: z.object({ uri: z.string(), level: Level, content: z.string() }),
  },
  'fs:stat': {
    request: z.object({ uri: Uri }),
    response: NodeStat,
  },
  // Trees a person manages (issue 21): remove or rename a tree or a node, the index following.
  'fs:rm': {
    request: z.object({
      uri: Uri,
      /** Only count what would go (for a confirmation); nothing is removed. */
      dryRun: z.boolean().default(false),
    }),
    response: z.object({
      uri: z.string(),
      /** Source files that go (a split document is one file), the sections of split documents, and the nodes in all. */
      files: z.number(),
      sections: z.number(),
      nodes: z.number(),
      removed: z.boolean(),
    }),
  },
  'fs:mv': {
    request: z.object({ from: Uri, to: Uri }),
    response: z.object({ from: z.string(), to: z.string(), nodes: z.number(), records: z.number() }),
  },
  'fs:tree': {
    request: z.object({
      uri: Uri,
      depth: z.number().int().min(1).max(64).default(64),
      /** Most children listed per directory; the rest are counted in `truncated`. */
      maxChildren: z.number().int().min(1).max(100_000).default(10_000),
    }),
    response: z.object({ root: TreeNode }),
  },
  // Summary runs; `redo` (issue 18): `cairn summarize --upgrade | --force`, the Explorer's "Upgrade summaries".
  'summarize:run': {
    request: z.object({
      /** Only the queued work for this root; all queued work when absent. With `redo`: this node's subtree; every root when absent. */
      uri: Uri.optional(),
      /**
       * 'upgrade': also redo, bottom-up, every summary under `uri` a weaker summarizer wrote than
       * the one configured (offline → LLM, an older prompt version); 'force': redo every summary.
       */
      redo: z.enum(['upgrade', 'force']).optional(),
    }),
    response: z.object({
      runs: z.array(DagRunResult),
      /** True when an upgrade had nothing to do because no LLM is configured (the offline summarizer is the strongest there is). */
      nothingStronger: z.boolean().optional(),
    }),
  },
  'summarize:estimate': {
    request: z.object({
      /** The tree to estimate; every queued tree when absent (every root with `redo`). */
      uri: Uri.optional(),
      /** Estimate that redo run instead of the queued work. */
      redo: z.enum(['upgrade', 'force']).optional(),
    }),
    response: z.object({
      estimates: z.array(PricedEstimate),
      /** The model new runs would use, and whether they would use it (false: extractive, offline). */
      model: z.string().optional(),
      llm: z.boolean().optional(),
    }),
  },
  'compress:run': {
    request: z.object({
      blocks: CompressInput.shape.blocks,
      strategy: CompressionStrategy.default('chain_integrity'),
      /** Tokens to keep; or `ratio` of the original (default 0.5). */
      budget: z.number().int().min(0).optional(),
      ratio: z.number().min(0).max(1).optional(),
      /** Shorten blocks between sentences only, as context packs do (default false: the seed may cut a first sentence). */
      whole_sentences: z.boolean().optional(),
      /** Groups of block ids kept before the strategy runs, in order (a context pack's `reserve`). */
      reserve: z.array(z.array(z.string())).optional(),
    }),
    response: z.object({ result: CompressionResult, before: z.string(), after: z.string() }),
  },
  'context:pack': {
    request: z.object({
      query: z.string().min(1).max(10_000),
      budget: z.number().int().min(1).max(1_000_000),
      strategy: CompressionStrategy.default('chain_integrity'),
      scope: z.enum(SCOPES).optional(),
      /** Search hits gathered before compressing. */
      topK: z.number().int().min(1).max(200).default(40),
    }),
    response: z.object({
      query: z.string(),
      /** The budget asked for; `markdown` (references and legend included) stays within it. */
      budget: z.number(),
      blocks: z.array(ContextBlock),
      result: CompressionResult,
      /** Block ids kept before the strategy ran: the top hits, one per group in rank order (pass them to `compress:run` to compress the same way). */
      reserve: z.array(z.array(z.string())).optional(),
      markdown: z.string(),
      /** What each short reference of `markdown` (`[3]`) stands for, in reference order. */
      legend: z.array(
        z.object({
          ref: z.string(),
          uri: z.string().optional(),
          message_ids: z.array(z.string()).optional(),
          lines: z.tuple([z.number().int(), z.number().int()]).optional(),
          source: z.string().optional(),
        }),
      ),
      /** Tokens of `markdown`. */
      tokens: z.number().int(),
    }),
  },
  'search:query': {
    request: z.object({
      query: z.string().min(1).max(10_000),
      mode: SearchMode.default('hybrid'),
      scope: z.enum(SCOPES).optional(),
      level: Level.optional(),
      topK: z.number().int().min(1).max(1000).default(10),
      /** Leave out hits scoring below this (scores are in [0, 1]). */
      minScore: z.number().min(0).max(1).optional(),
      /** Only nodes whose URI starts with this (a directory URI with its `/` for a subtree). */
      uriPrefix: z.string().min(6).max(4096).optional(),
    }),
    response: SearchResponse,
  },
  'index:rebuild': {
    request: z.object({}),
    response: z.object({ records: z.number(), ms: z.number() }),
  },
  //#region Long-term memory (main/engine/memory/long-term)
  'memories:list': {
    request: z.object({ category: MemoryCategorySchema.optional(), limit: z.number().int().min(1).max(100_000).optional() }),
    response: z.object({ memories: z.array(LongTermMemorySchema) }),
  },
  'memories:get': {
    request: z.object({ id: MemoryId }),
    response: z.object({ memory: LongTermMemorySchema }),
  },
  'memories:edit': {
    request: z.object({
      id: MemoryId,
      patch: z.object({
        title: z.string().min(1).max(1000).optional(),
        content: z.string().min(1).max(100_000).optional(),
        keywords: z.array(z.string().max(200)).max(200).optional(),
        category: MemoryCategorySchema.optional(),
      }),
    }),
    response: z.object({ change: MemoryChangeSchema }),
  },
  'memories:forget': {
    request: z.object({ id: MemoryId, reason: z.string().max(2000).optional() }),
    response: z.object({ change: MemoryChangeSchema }),
  },
  'memories:history': {
    request: z.object({ id: MemoryId.optional() }),
    response: z.object({ changes: z.array(MemoryChangeSchema) }),
  },
  'memories:search': {
    request: z.object({ query: z.string().min(1).max(10_000), topK: z.number().int().min(1).max(1000).default(10), mode: SearchMode.default('hybrid') }),
    /** Hits on memory pages only, each with the memory it found. */
    response: z.object({ hits: z.array(SearchHit.extend({ memory: LongTermMemorySchema })) }),
  },
  'memories:commit': {
    /** `dry_run`: decide as a commit would and write nothing (what a review shows). */
    request: z.object({ candidates: z.array(MemoryCandidateSchema).max(10_000), dry_run: z.boolean().optional() }),
    /** One change per candidate, in order (add, update, or none when it was already known or its pinned target holds it as `proposed`). */
    response: z.object({ changes: z.array(MemoryChangeSchema) }),
  },
  //#endregion
  //#region Sessions and the dual-track processor (main/engine/memory/processor)
  'sessions:import': {
    /** A conversation file in any supported format, on the engine's machine; `commit` also commits each conversation to memory. */
    request: z.object({ path: z.string().min(1).max(4096), commit: z.boolean().default(false) }),
    response: z.object({ conversations: z.array(ImportedConversation), commits: z.array(SessionCommitResult) }),
  },
  'sessions:list': {
    request: z.object({}),
    response: z.object({ conversations: z.array(StoredConversation) }),
  },
  'sessions:get': {
    /** A conversation id or its ctx://session/{id}/ URI. */
    request: z.object({ id: z.string().min(1).max(4096) }),
    response: z.object({ uri: z.string(), conversation: ConversationSchema }),
  },
  'sessions:analyze': {
    request: z
      .object({
        /** An imported conversation (id or ctx://session/ URI); its analysis is stored next to it. */
        id: z.string().min(1).max(4096).optional(),
        /** Or a conversation file analyzed in place (nothing is written). */
        path: z.string().min(1).max(4096).optional(),
        /** Which conversation of a file that holds several. */
        conversation: z.string().min(1).max(4096).optional(),
        /** Run track A / track B; absent: the workspace's settings (Settings → memory tracks). */
        trackA: z.boolean().optional(),
        trackB: z.boolean().optional(),
        /** Ignore cached analyses. */
        refresh: z.boolean().default(false),
      })
      .refine((r) => (r.id === undefined) !== (r.path === undefined), { message: 'give exactly one of id and path' }),
    response: SessionAnalysisResult,
  },
  'sessions:commit': {
    /** Commits what the trigger proposes for automatic commit (the calibrated gate), minus rejected candidates. */
    request: z.object({ id: z.string().min(1).max(4096) }),
    response: SessionCommitResult,
  },
  // Review before commit: the trigger proposes, the person decides.
  'sessions:propose': {
    request: z.object({ id: z.string().min(1).max(4096) }),
    response: SessionProposal,
  },
  'sessions:accept': {
    /** Candidates of sessions:propose by id; a title or content given is the person's text (the memory is pinned). */
    request: z.object({
      id: z.string().min(1).max(4096),
      accept: z.array(z.object({ candidate: z.string().min(1).max(200), title: z.string().min(1).max(1000).optional(), content: z.string().min(1).max(100_000).optional() })).min(1).max(10_000),
    }),
    response: SessionCommitResult,
  },
  'sessions:reject': {
    /** Remembered in the workspace: a candidate of the same category from the same messages is not proposed again. */
    request: z.object({ id: z.string().min(1).max(4096), candidates: z.array(z.string().min(1).max(200)).min(1).max(10_000) }),
    response: z.object({ rejected: z.number().int() }),
  },
  'sessions:stats': {
    /** The monitoring report of the workspace's memory processor, after a health check. */
    request: z.object({}),
    response: SessionStats,
  },
  //#endregion
  //#region Export and import (main/engine/portability)
  'export:run': {
    request: z.object({
      format: ExportFormat,
      /** A folder (contextfs, markdown) or a file (json, jsonl) on the engine's machine, outside the workspace. */
      out: z.string().min(1).max(4096),
      /** Only this scope; every scope when absent. */
      scope: z.enum(['resources', 'user', 'agent', 'session']).optional(),
    }),
    response: ExportResult,
  },
  'import:run': {
    /** A file or folder written by export:run; its format is detected. */
    request: z.object({ path: z.string().min(1).max(4096) }),
    response: ImportResult,
  },
  //#endregion
  //#region Settings and the LLM monitor (main/engine/settings)
  'settings:get': {
    request: z.object({}),
    response: SettingsView,
  },
  'settings:set': {
    request: z
      .object({
        llm: LlmSettingsPatch.optional(),
        memory: MemorySettingsPatch.optional(),
        /** A new API key (kept out of every file and log), or null to forget it. */
        apiKey: z.string().trim().min(1, 'must not be empty').max(1000).nullable().optional(),
      })
      .strict(),
    response: SettingsView,
  },
  'settings:test': {
    /** One tiny request with the saved settings, or with these unsaved ones laid over them. */
    request: z.object({ llm: LlmSettingsPatch.optional(), apiKey: z.string().trim().min(1).max(1000).optional() }).strict(),
    response: z.object({ ok: z.boolean(), ms: z.number(), model: z.string(), message: z.string() }),
  },
  'llm:stats': {
    request: z.object({}),
    response: LlmStatsView,
  },
  //#endregion
  //#region Skills (main/engine/skills)
  'skills:add': {
    request: z.object({
      /** A folder holding a SKILL.md (and any helper files), or a SKILL.md alone, on the engine's machine. */
      path: z.string().min(1).max(4096),
      /** The skill's name (slugged); else the SKILL.md's front-matter `name:`, else the folder's or file's name. */
      name: z.string().min(1).max(200).optional(),
      reason: z.string().trim().min(1).max(2000).optional(),
      /** false: build the tree only and hold its summaries queued, as ingest:start's. Default true. */
      summarize: z.boolean().optional(),
    }),
    response: z.object({ skill: SkillSummary, result: IngestResult }),
  },
  'skills:list': {
    request: z.object({}),
    response: z.object({ skills: z.array(SkillSummary) }),
  },
  'skills:read': {
    request: z.object({ name: z.string().min(1).max(200) }),
    response: z.object({
      skill: SkillSummary,
      /** The SKILL.md's URI and its whole text. */
      entry: z.string(),
      content: z.string(),
      /** Every file of the skill, SKILL.md included (a split document counts as one file). */
      files: z.array(z.object({ uri: z.string(), path: z.string(), tokens: z.number().optional() })),
    }),
  },
  //#endregion
} as const;

export type CommandName = keyof typeof commands;
export type CommandRequest<K extends CommandName> = z.input<(typeof commands)[K]['request']>;
export type ParsedCommandRequest<K extends CommandName> = z.output<(typeof commands)[K]['request']>;
export type CommandResponse<K extends CommandName> = z.output<(typeof commands)[K]['response']>;

export const IngestPhase = z.enum(['scan', 'parse', 'build']);
export type IngestPhase = z.infer<typeof IngestPhase>;

const dagEvent = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ type: z.literal(type), root: z.string(), uri: z.string(), counts: DagCounts, ...shape });

export const EngineEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('dag/started'), root: z.string(), messageId: z.string() }),
  z.object({ type: z.literal('dag/finished'), root: z.string(), messageId: z.string(), result: DagRunResult }),
  z.object({ type: z.literal('dag/run-failed'), root: z.string(), messageId: z.string(), error: z.object({ code: z.string(), message: z.string() }) }),
  dagEvent('dag/dir-dispatched', {
    parent: z.string().nullable(),
    pending: z.number(),
    dirs: z.number(),
    files: z.number(),
    /** A split document (its children are the document's sections), not a folder of the source. */
    document: z.boolean().optional(),
  }),
  dagEvent('dag/pending-changed', { pending: z.number() }),
  dagEvent('dag/summary-started', { children: z.number() }),
  dagEvent('dag/summary-done', { reused: z.boolean(), abstract: z.string(), status: z.enum(['done', 'fallback']).optional() }),
  dagEvent('dag/fallback-used', { reason: z.string() }),
  dagEvent('dag/failed', { reason: z.string() }),
  z.object({ type: z.literal('ingest/started'), jobId: z.string(), source: z.string(), root: z.string(), resumed: z.boolean() }),
  z.object({
    type: z.literal('ingest/progressed'),
    jobId: z.string(),
    phase: IngestPhase,
    /** Items finished in this phase, and the total where it is known (the scan does not know it). */
    done: z.number(),
    total: z.number().nullable(),
    bytes: z.number(),
    current: z.string().optional(),
  }),
  z.object({ type: z.literal('ingest/skipped'), jobId: z.string(), skip: Skip }),
  z.object({ type: z.literal('ingest/finished'), jobId: z.string(), result: IngestResult }),
  z.object({
    type: z.literal('ingest/failed'),
    jobId: z.string(),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
  /** The LLM monitor's numbers, at most a few times a second while calls run. */
  z.object({ type: z.literal('llm/stats-changed'), stats: LlmStatsView }),
  /**
   * The desktop host restarted the engine after its worker crashed: `ingests` (their sources) and
   * `summaries` (their roots) were interrupted and run again. `engine/stopped`: it crashed too
   * often (main/app/engine-supervisor.ts) and was not restarted; every call fails until the app restarts.
   */
  z.object({ type: z.literal('engine/restarted'), reason: z.string(), ingests: z.array(z.string()), summaries: z.array(z.string()) }),
  z.object({ type: z.literal('engine/stopped'), reason: z.string() }),
  z.object({
    type: z.literal('queue/enqueued'),
    id: z.string(),
    uri: z.string(),
    context_type: z.string(),
  }),
  /** A change waits for another process that holds the workspace (an ingest, the app, `cairn mcp`). */
  z.object({
    type: z.literal('workspace/waiting'),
    /** What the holder does ("the ingest of /x", else its process title), its pid, and since when. */
    holder: z.string(),
    pid: z.number(),
    since: z.string(),
    /** The line a person is shown: "waiting for the ingest of /x, pid 12, started 12 s ago". */
    message: z.string(),
  }),
]);
export type EngineEvent = z.infer<typeof EngineEvent>;
export type EngineEventType = EngineEvent['type'];

/** Validates a command's request; bad input becomes an INVALID_INPUT error naming the fields. */
export function parseRequest<K extends CommandName>(name: K, input: unknown): ParsedCommandRequest<K> {
  const result = commands[name].request.safeParse(input);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(request)'}: ${issue.message}`);
    throw new CairnError('INVALID_INPUT', `Invalid ${name} request: ${problems.join('; ')}`, { details: { command: name, problems } });
  }
  return result.data as ParsedCommandRequest<K>;
}

export function isCommandName(name: unknown): name is CommandName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(commands, name);
}
