/**
 * Entry point the code parser calls for a file's summary. The tree-sitter skeleton extractor
 * (issue 3) replaces this body; the signature is the contract between the two.
 */
import type { CodeSummaryMode } from '../../../../shared/types/ingest.js';
import type { ParsedSummary } from '../types.js';

export interface CodeSummaryInput {
  relPath: string;
  text: string;
  mode: CodeSummaryMode;
}

export interface CodeSummaryResult {
  /** Language id, e.g. "python", "typescript", "tsx", "c", "cpp", when recognised. */
  language?: string;
  /** The skeleton as the file's L0/L1, when the mode and the file allow it. */
  summary?: ParsedSummary;
  /** Why the LLM (or the extractive fallback) owes this file a summary. */
  summaryOwed?: string;
}

export async function summarizeCode(input: CodeSummaryInput): Promise<CodeSummaryResult> {
  return { summaryOwed: `no skeleton extractor yet for ${input.relPath}` };
}
