/**
 * What parsers produce. Parsers make no LLM calls and touch no workspace: they turn one source
 * file into plain data (a file node, or a directory of sections for a split document), which the
 * ingest pipeline writes under `ctx://temp/{job}/` and TreeBuilder moves into its scope.
 * Parsing runs in worker threads, so everything here must be structured-clone friendly.
 */
import type { SplitOptions, CodeSummaryMode } from '../../../shared/types/ingest.js';

export interface ParseInput {
  /** Absolute path of the source file (for messages and provenance). */
  path: string;
  /** Path relative to the ingested folder, POSIX separators. */
  relPath: string;
  bytes: Uint8Array;
  split: SplitOptions;
  codeSummaryMode: CodeSummaryMode;
  /**
   * Give each file node its extractive L0/L1 here (no LLM configured: the DAG would write the
   * same, summarize/ingest-file-summaries.ts); `name` is the top node's name in the tree.
   */
  fileSummaries?: { name: string };
}

export interface ParsedMeta {
  tokens: number;
  /** 1-based inclusive line range in the (decoded, converted) source. */
  lines?: [number, number];
  /** 1-based inclusive PDF page range. */
  pages?: [number, number];
  /** The heading that opens this section, or the document title. */
  title?: string;
}

export type ParsedNode =
  | { kind: 'file'; name: string; content: string; meta: ParsedMeta; summary?: { abstract: string; overview: string } }
  | { kind: 'dir'; name: string; children: ParsedNode[]; meta: ParsedMeta };

/** A summary a parser could make without an LLM (a code skeleton), or the reason one is owed. */
export interface ParsedSummary {
  abstract: string;
  overview: string;
  method: 'skeleton';
}

export interface ParsedFile {
  /** The file as one node, or as a directory (named after the file) of its sections. */
  node: ParsedNode;
  parserName: string;
  /** markdown | text | html | pdf | code | ... */
  sourceFormat: string;
  language?: string;
  /** Tokens of the whole converted document. */
  tokens: number;
  parseMs: number;
  /** Problems worth telling the user that did not stop the parse (e.g. "page 3 has no text layer"). */
  warnings: string[];
  summary?: ParsedSummary;
  /** Why no summary could be made here and an LLM (or the extractive fallback) owes one. */
  summaryOwed?: string;
  /** A code skeleton kept as context for the LLM's summary (ast_llm mode). */
  skeletonText?: string;
}

export interface Parser {
  readonly name: string;
  readonly format: string;
  /** Lower-case extensions with the dot (".md"), matched against the file name. */
  readonly extensions: readonly string[];
  parse(input: ParseInput): Promise<ParsedFile>;
}
