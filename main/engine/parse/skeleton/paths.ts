/**
 * Skeletons of files on disk, in the JSON shape of `cairn skeleton --json` (docs/ARCHITECTURE.md#the-cli).
 */
import { readFileSync } from 'node:fs';
import type { CodeSummaryMode } from '../../../../shared/types/ingest.js';
import { errorMessage } from '../../../../shared/errors.js';
import { detectLanguage, extensionOf } from './detect.js';
import { extractSkeleton, type ExtractResult } from './extract.js';
import { countLines, EMPTY_REASON, MAX_ERROR_RATIO, MIN_SKELETON_LINES, syntaxErrorReason, tooShortReason, unsupportedReason, type SkeletonFallback } from './policy.js';
import { renderSkeleton } from './render.js';
import { isEmptySkeleton, type ClassSkeleton, type FunctionSig, type SkeletonLanguage } from './skeleton.js';

export interface SkeletonFile {
  /** Where to read the file. */
  path: string;
  /** How to name it in the output (relative, POSIX separators). */
  relPath: string;
}

export interface SkeletonsOptions {
  /** `ast` (default) keeps the first line of each doc comment; `llm` and `ast_llm` keep them whole. */
  mode?: CodeSummaryMode;
}

/** One file of `cairn skeleton --json`. More fields than docs/ARCHITECTURE.md#the-cli names; none fewer. */
export interface SkeletonJson {
  file: string;
  language: SkeletonLanguage | null;
  module_doc: string | null;
  imports: string[];
  classes: ClassSkeleton[];
  functions: FunctionSig[];
  /** The rendered skeleton; empty when none could be made. */
  text: string;
  lines: number;
  /** Syntax errors tree-sitter recovered from. */
  parse_errors: number;
  /** Why ingest in this mode would not use the skeleton as the file's summary; null when it would. */
  fallback: SkeletonFallback | 'unreadable' | null;
  /** The same for people: "file under 100 lines (42)". */
  fallback_reason: string | null;
}

function empty(file: string, language: SkeletonLanguage | null, lines: number, fallback: SkeletonJson['fallback'], reason: string): SkeletonJson {
  return { file, language, module_doc: null, imports: [], classes: [], functions: [], text: '', lines, parse_errors: 0, fallback, fallback_reason: reason };
}

async function one(file: SkeletonFile, text: string, mode: CodeSummaryMode): Promise<SkeletonJson> {
  const language = detectLanguage(file.relPath, text) ?? null;
  const lines = countLines(text);
  if (language === null) {
    return empty(file.relPath, null, lines, 'unsupported-language', unsupportedReason(extensionOf(file.relPath)));
  }
  let result: ExtractResult;
  try {
    result = await extractSkeleton(file.relPath, text, language, { docs: mode === 'ast' ? 'first-sentence' : 'full' });
  } catch (error) {
    return empty(file.relPath, language, lines, 'parse-error', `parse error: ${errorMessage(error)}`);
  }
  const { skeleton, errors, errorRatio } = result;
  let fallback: SkeletonJson['fallback'] = null;
  let reason: string | null = null;
  if (mode === 'llm') [fallback, reason] = ['mode-llm', 'mode llm'];
  else if (errorRatio > MAX_ERROR_RATIO) [fallback, reason] = ['parse-error', syntaxErrorReason(errors, errorRatio)];
  else if (isEmptySkeleton(skeleton)) [fallback, reason] = ['empty-skeleton', EMPTY_REASON];
  else if (mode === 'ast_llm') [fallback, reason] = ['mode-ast-llm', 'mode ast_llm'];
  else if (lines < MIN_SKELETON_LINES) [fallback, reason] = ['too-short', tooShortReason(lines)];
  return {
    file: file.relPath,
    language,
    module_doc: skeleton.module_doc,
    imports: skeleton.imports,
    classes: skeleton.classes,
    functions: skeleton.functions,
    text: renderSkeleton(skeleton),
    lines,
    parse_errors: errors,
    fallback,
    fallback_reason: reason,
  };
}

/**
 * Extracts the skeleton of each file, in the order given. The skeleton is made whenever the
 * language is supported, even when ingest would not use it (a short file, mode `llm`): the
 * `fallback` field says what ingest would do. Unreadable files are reported, not thrown.
 *
 * @example
 * const { files } = await skeletonsForPaths([{ path: '/repo/src/app.ts', relPath: 'src/app.ts' }], { mode: 'ast' });
 * process.stdout.write(JSON.stringify({ files }));
 */
export async function skeletonsForPaths(files: readonly SkeletonFile[], options: SkeletonsOptions = {}): Promise<{ files: SkeletonJson[] }> {
  const mode = options.mode ?? 'ast';
  // Read in one call: the thread (a worker, or the command with --workers 0) has nothing else to
  // do meanwhile, and the promise API's four round trips through libuv's pool (stat, open, read,
  // close) cost more CPU than the read.
  const decoder = new TextDecoder('utf-8');
  const read = (file: SkeletonFile): { text: string } | { error: string } => {
    try {
      return { text: decoder.decode(readFileSync(file.path)) };
    } catch (error) {
      return { error: errorMessage(error) };
    }
  };
  const out: SkeletonJson[] = [];
  for (const file of files) {
    const loaded = read(file);
    if ('error' in loaded) out.push(empty(file.relPath, detectLanguage(file.relPath) ?? null, 0, 'unreadable', `unreadable: ${loaded.error}`));
    else out.push(await one(file, loaded.text, mode));
  }
  return { files: out };
}
