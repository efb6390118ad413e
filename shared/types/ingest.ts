import { z } from 'zod';
import { INGEST_SCOPES } from '../uri.js';

/** Why a file or folder was not ingested. Every skip is recorded and shown; none is silent. */
export const SkipReason = z.enum([
  'gitignored',
  'vcs-folder',
  'dependency-folder',
  'binary',
  'too-large',
  'symlink-loop',
  'symlink-outside',
  'broken-symlink',
  /** A symbolic link met while following links is turned off. */
  'symlink-not-followed',
  'unreadable',
  'unsupported-encoding',
  'parse-error',
  'special-file',
  'empty',
]);
export type SkipReason = z.infer<typeof SkipReason>;

export const Skip = z.object({
  /** Path relative to the ingested folder (POSIX separators); the folder itself is ".". */
  path: z.string(),
  reason: SkipReason,
  /** A sentence for people: what was wrong, in this file's terms. */
  detail: z.string().optional(),
});
export type Skip = z.infer<typeof Skip>;

export const CodeSummaryMode = z.enum(['ast', 'llm', 'ast_llm']);
export type CodeSummaryMode = z.infer<typeof CodeSummaryMode>;

export const SplitOptions = z.object({
  /** A document of at most this many tokens stays one file. */
  maxTokens: z.number().int().positive().default(1024),
  /** Sections under this many tokens merge with their neighbours. */
  minTokens: z.number().int().nonnegative().default(512),
});
export type SplitOptions = z.infer<typeof SplitOptions>;

export const IngestOptions = z.object({
  scope: z.enum(INGEST_SCOPES).default('resources'),
  /** Name of the node under the scope root; defaults to the folder or file name. */
  name: z.string().min(1).optional(),
  /** Files larger than this are skipped with reason too-large. */
  maxFileBytes: z.number().int().positive().default(10 * 1024 * 1024),
  split: SplitOptions.default({ maxTokens: 1024, minTokens: 512 }),
  codeSummaryMode: CodeSummaryMode.default('ast'),
  /**
   * When the root's name is taken by a tree ingested from another source: `copy` adds this one
   * beside it (`name-2`), `update` updates that tree from this source (the upload UI asks which).
   */
  onClash: z.enum(['copy', 'update']).default('copy'),
  /** Follow symbolic links that stay inside the ingested folder. */
  followSymlinks: z.boolean().default(true),
  /** A folder under the scope root the tree goes in (skills go under `ctx://agent/skills/`); the scope root itself when absent. */
  under: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]*$/, 'must be one lower-case folder name')
    .optional(),
  /** A single file becomes a folder holding it (`{name}/SKILL.md`, a skill added from its SKILL.md alone). */
  asFolder: z.boolean().default(false),
  /** Why this was added, kept on the root's meta (`meta.reason`); a later ingest without one keeps it. */
  reason: z.string().trim().min(1).max(2000).optional(),
});
export type IngestOptions = z.infer<typeof IngestOptions>;
export type IngestOptionsInput = z.input<typeof IngestOptions>;

/** What a parser assumed or left out while reading a file it kept (a legacy encoding, a page without an article). */
export const FileWarning = z.object({ path: z.string(), warning: z.string() });
export type FileWarning = z.infer<typeof FileWarning>;

export const IngestResult = z.object({
  jobId: z.string(),
  /** The URI of the ingested tree's root. */
  root: z.string(),
  files: z.number().int(),
  nodes: z.number().int(),
  /** Nodes whose content changed (or are new) in this run; re-ingesting an unchanged folder gives 0. */
  changed: z.number().int(),
  removed: z.number().int(),
  skipped: z.array(Skip),
  /** Files kept with a warning, at most MAX_WARNINGS_IN_RESULT (every one is also in its node's meta). */
  warnings: z.array(FileWarning).default([]),
  bytes: z.number(),
  tokens: z.number().int(),
  llm_calls: z.number().int(),
  ms: z.number(),
  /** Whether this run picked up an ingest interrupted earlier. */
  resumed: z.boolean(),
  /** A git repository's tree: the URL, the ref and the commit ingested. */
  git: z.object({ remote: z.string(), ref: z.string(), commit: z.string() }).optional(),
});
export type IngestResult = z.infer<typeof IngestResult>;
