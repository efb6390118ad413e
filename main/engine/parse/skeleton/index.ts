/**
 * Code skeletons (docs/SPEC.md#code-skeletons): the entry point the code parser calls for a file's summary,
 * and the public API of the skeleton extractor.
 *
 * Modes (`code_summary_mode`):
 * - `ast` (default): a file of at least 100 lines gets its skeleton as summary, with no LLM call.
 * - `llm`: every file is owed an LLM summary; nothing is extracted.
 * - `ast_llm`: the skeleton is extracted (docs in full) and handed to the LLM as context.
 * Whenever no skeleton summary is made, `summaryOwed` says why and `fallback` names the reason.
 */
import type { CodeSummaryMode } from '../../../../shared/types/ingest.js';
import { errorMessage } from '../../../../shared/errors.js';
import type { ParsedSummary } from '../types.js';
import { detectLanguage, extensionOf } from './detect.js';
import { extractSkeleton } from './extract.js';
import { describeSkeleton, OVERVIEW_MAX_CHARS, renderSkeleton } from './render.js';
import { countLines, EMPTY_REASON, MAX_ERROR_RATIO, MIN_SKELETON_LINES, syntaxErrorReason, tooShortReason, unsupportedReason, type SkeletonFallback } from './policy.js';
import { isEmptySkeleton } from './skeleton.js';

export { configureGrammars, type GrammarOptions } from './grammars.js';
export { detectLanguage, isSkeletonPath, LANGUAGES, type LanguageInfo } from './detect.js';
export { extractSkeleton, type ExtractOptions, type ExtractResult } from './extract.js';
export { describeSkeleton, renderSkeleton, OVERVIEW_MAX_CHARS, ABSTRACT_MAX_CHARS, type RenderOptions } from './render.js';
export { skeletonsForPaths, type SkeletonJson, type SkeletonFile, type SkeletonsOptions } from './paths.js';
export { countLines, MAX_ERROR_RATIO, MIN_SKELETON_LINES, type SkeletonFallback } from './policy.js';
export type * from './skeleton.js';

/** Cap of the skeleton handed to the LLM in `ast_llm` mode: full docs make it longer than an overview. */
export const LLM_CONTEXT_MAX_CHARS = 2 * OVERVIEW_MAX_CHARS;

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
  /** The reason behind `summaryOwed`, as a stable code. */
  fallback?: SkeletonFallback;
  /** Mode `ast_llm`: the rendered skeleton (full docs) to give the LLM as context. */
  skeletonText?: string;
}

/**
 * The summary of one code file, or the reason an LLM owes it one. Never throws for bad code:
 * syntax errors, a failed extraction or a missing grammar become a `summaryOwed` reason.
 *
 * @example
 * const result = await summarizeCode({ relPath: 'src/station.py', text, mode: 'ast' });
 * if (result.summary) writeSummary(result.summary);          // skeleton, no LLM call
 * else owe(result.summaryOwed, result.skeletonText);          // e.g. "file under 100 lines (42)"
 */
export async function summarizeCode(input: CodeSummaryInput): Promise<CodeSummaryResult> {
  const language = detectLanguage(input.relPath, input.text);
  if (language === undefined) {
    return { fallback: 'unsupported-language', summaryOwed: unsupportedReason(extensionOf(input.relPath)) };
  }
  if (input.mode === 'llm') return { language, fallback: 'mode-llm', summaryOwed: 'mode llm' };
  const lines = countLines(input.text);
  if (input.mode === 'ast' && lines < MIN_SKELETON_LINES) {
    return { language, fallback: 'too-short', summaryOwed: tooShortReason(lines) };
  }
  let result;
  try {
    result = await extractSkeleton(input.relPath, input.text, language, { docs: input.mode === 'ast_llm' ? 'full' : 'first-sentence' });
  } catch (error) {
    return { language, fallback: 'parse-error', summaryOwed: `parse error: ${errorMessage(error)}` };
  }
  if (result.errorRatio > MAX_ERROR_RATIO) return { language, fallback: 'parse-error', summaryOwed: syntaxErrorReason(result.errors, result.errorRatio) };
  const { skeleton } = result;
  if (isEmptySkeleton(skeleton)) return { language, fallback: 'empty-skeleton', summaryOwed: EMPTY_REASON };
  if (input.mode === 'ast_llm') {
    return { language, fallback: 'mode-ast-llm', summaryOwed: 'mode ast_llm', skeletonText: renderSkeleton(skeleton, { maxChars: LLM_CONTEXT_MAX_CHARS }) };
  }
  return {
    language,
    summary: {
      abstract: describeSkeleton(skeleton),
      // Fenced, so a Markdown view shows the outline as written (no `__init__` turned bold).
      overview: '```text\n' + renderSkeleton(skeleton, { maxChars: OVERVIEW_MAX_CHARS - 16 }).trimEnd() + '\n```\n',
      method: 'skeleton',
    },
  };
}
