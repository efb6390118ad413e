/**
 * When a skeleton stands as a file's summary, and why it does not. Shared by `summarizeCode`
 * (ingest) and `skeletonsForPaths` (the CLI), so both give the same reasons.
 */

/**
 * Files shorter than this are owed an LLM summary in `ast` mode (the seed's threshold,
 * docs/SPEC.md#code-skeletons).
 */
export const MIN_SKELETON_LINES = 100;

/**
 * Above this share of characters inside syntax errors, the skeleton is not trusted. Tree-sitter
 * recovers locally, so a stray error costs a few characters; an unclosed brace or another
 * language's syntax swallows a large part of the file.
 */
export const MAX_ERROR_RATIO = 0.1;

/** Why a file got no skeleton summary. Stable: ingest records it in the node's meta. */
export type SkeletonFallback = 'unsupported-language' | 'mode-llm' | 'mode-ast-llm' | 'too-short' | 'parse-error' | 'empty-skeleton';

/** Lines as an editor counts them: a final newline does not start another line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

export function unsupportedReason(ext: string): string {
  return `unsupported language${ext ? ` (${ext})` : ''}`;
}

export function tooShortReason(lines: number): string {
  return `file under ${MIN_SKELETON_LINES} lines (${lines})`;
}

export function syntaxErrorReason(errors: number, errorRatio: number): string {
  return `parse error: ${errors} syntax errors cover ${Math.round(errorRatio * 100)}% of the file`;
}

export const EMPTY_REASON = 'empty skeleton: no class or function found';
