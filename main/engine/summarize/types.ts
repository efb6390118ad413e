/**
 * What the DAG summarizer works with. A `NodeSummarizer` writes L0/L1 for one file or one
 * directory; it is backed by an LLM (through the LanguageModel port) or by the embedded
 * extractive summarizer. When it fails, the DAG falls back to the seed's fallback summary
 * (docs/SPEC.md#fallback).
 */
import { z } from 'zod';
import type { SummarizerProvenance } from '../../../shared/types/node.js';

/** One child of a directory, as its parent's summary sees it (the seed's ChildSummary). */
export interface ChildSummary {
  uri: string;
  name: string;
  abstract: string;
  category: string;
  is_directory: boolean;
  has_abstract: boolean;
  /** A sub-folder's L1: what lies below it, so the parent can name its subtree's distinctive terms. */
  overview?: string;
  /** A sub-folder that is a document the ingest split into parts (its meta's `document`): listed as a document, whatever its name. */
  document?: boolean;
  /**
   * A file's key terms (its L1's "Key terms:" line): all of its L1 a folder summary reads, kept
   * instead of the L1 so that a run holds a few words per file until its folder is summarized.
   */
  keyTerms?: string[];
}

/** The seed's DirectorySummary. */
export interface DirectorySummary {
  abstract: string;
  overview: string;
  child_count: number;
  categories: string[];
}

export interface FileSummaryInput {
  uri: string;
  name: string;
  /** The node's content (L2), possibly cut to fit the model's budget. */
  text: string;
  format: string;
  language?: string;
  /** A code skeleton given as context in ast_llm mode. */
  skeleton?: string;
  signal?: AbortSignal;
}

export interface DirectorySummaryInput {
  uri: string;
  name: string;
  children: ChildSummary[];
  signal?: AbortSignal;
}

export interface SummaryOutput {
  abstract: string;
  overview: string;
  /** Tokens the summarizer spent (0 for the extractive one). */
  usage: { inputTokens: number; outputTokens: number };
  /** Whether this came from a model call (counted as an LLM call). */
  llm: boolean;
}

export interface NodeSummarizer {
  /** 'llm:<model>' or 'extractive'. */
  readonly id: string;
  /** What the metas it writes record as their summarizer. Absent: `{ kind: 'extractive' }`. */
  readonly provenance?: SummarizerProvenance;
  /**
   * Most children one directory call can take; larger directories are summarized in batches and
   * merged. Absent: the DAG's max_children (50). The extractive summarizer has no context window
   * and reads every child at once, which summarizes better than merging part-summaries.
   */
  readonly maxChildren?: number;
  summarizeFile(input: FileSummaryInput): Promise<SummaryOutput>;
  summarizeDirectory(input: DirectorySummaryInput): Promise<SummaryOutput & { categories: string[] }>;
}

/** The JSON a model returns for a directory (complete_json). */
export const DirectorySummarySchema = z.object({
  abstract: z.string().min(1),
  overview: z.string().min(1),
  categories: z.array(z.string()).default([]),
});

/** The JSON a model returns for a file. */
export const FileSummarySchema = z.object({
  abstract: z.string().min(1),
  overview: z.string().min(1),
});

export const MAX_ABSTRACT_CHARS = 256;
export const MAX_OVERVIEW_CHARS = 4000;
/** Most characters of a file given to the summarizer (the DAG's, and the ingest's offline summaries). */
export const DEFAULT_MAX_INPUT_CHARS = 24_000;

/** A summary cut to `max` characters (code points), with an ellipsis when cut. */
export function clipSummary(text: string, max: number): string {
  const chars = [...text.trim()];
  return chars.length <= max ? chars.join('') : `${chars.slice(0, max - 1).join('')}…`;
}
