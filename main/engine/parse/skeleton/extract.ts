/**
 * Parses a file with its language's grammar and runs the language's extractor.
 */
import type { Node, Tree } from 'web-tree-sitter';
import { CairnError, errorMessage } from '../../../../shared/errors.js';
import { loadGrammar, parseWith } from './grammars.js';
import type { Extractor } from './languages/common.js';
import { extractC } from './languages/c.js';
import { neutralizeMacros } from './languages/c-family.js';
import { extractCpp } from './languages/cpp.js';
import { emptyFunctionBodies, extractGo } from './languages/go.js';
import { extractJava } from './languages/java.js';
import { extractJavaScript } from './languages/javascript.js';
import { extractPython } from './languages/python.js';
import { extractRust } from './languages/rust.js';
import { extractTypeScript } from './languages/typescript.js';
import type { CodeSkeleton, DocDepth, SkeletonLanguage } from './skeleton.js';

const EXTRACTORS: Readonly<Record<SkeletonLanguage, Extractor>> = {
  python: extractPython,
  javascript: extractJavaScript,
  typescript: extractTypeScript,
  tsx: extractTypeScript,
  rust: extractRust,
  go: extractGo,
  java: extractJava,
  c: extractC,
  cpp: extractCpp,
};

/**
 * Rewrites applied to the text before parsing, line numbers unchanged. Only the parser sees
 * them; nothing they touch is extracted.
 */
const PREPARE: Partial<Record<SkeletonLanguage, (text: string) => string>> = {
  c: neutralizeMacros,
  cpp: neutralizeMacros,
  go: emptyFunctionBodies,
};

export interface ExtractOptions {
  /** Doc comments: first line (`ast` mode, the default) or whole (`ast_llm`). */
  docs?: DocDepth;
}

export interface ExtractResult {
  skeleton: CodeSkeleton;
  /** Syntax errors tree-sitter recovered from (ERROR and MISSING nodes). */
  errors: number;
  /** Share of the file's characters inside ERROR nodes, 0..1. */
  errorRatio: number;
}

/**
 * Counts ERROR and MISSING nodes and the characters tree-sitter could not fit anywhere: the part
 * of each ERROR node not covered by a named child. Well-formed declarations often sit inside an
 * ERROR node (an `extern "C" {` opened under `#ifdef`); they are not junk, and the extractors
 * read them. Only subtrees that contain an error are visited, so a clean tree costs one check.
 */
export function measureErrors(root: Node): { errors: number; errorChars: number } {
  let errors = 0;
  let errorChars = 0;
  // An explicit stack: generated code nests deep enough (long operator chains) to overflow recursion.
  const stack: Node[] = root.hasError ? [root] : [];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.isMissing) {
      errors++;
      errorChars += 1;
      continue;
    }
    const kids = node.children;
    if (node.isError) {
      errors++;
      let covered = 0;
      for (const child of kids) if (child?.isNamed) covered += child.endIndex - child.startIndex;
      errorChars += Math.max(0, node.endIndex - node.startIndex - covered);
    }
    for (const child of kids) if (child && (child.hasError || child.isMissing)) stack.push(child);
  }
  return { errors, errorChars };
}

/**
 * Extracts the skeleton of one file. Syntax errors do not throw: tree-sitter recovers and the
 * result reports how much of the file it could not parse, for the caller to judge.
 *
 * @example
 * const { skeleton, errorRatio } = await extractSkeleton('src/station.py', text, 'python');
 * console.log(skeleton.classes.map((c) => c.name), errorRatio);
 *
 * @throws CairnError `NOT_FOUND` when a grammar file is missing, `PARSE_FAILED` when the grammar
 * cannot load or the extractor fails on an unexpected tree.
 */
export async function extractSkeleton(file: string, text: string, language: SkeletonLanguage, options: ExtractOptions = {}): Promise<ExtractResult> {
  const grammar = await loadGrammar(language);
  let tree: Tree | undefined;
  try {
    tree = parseWith(grammar, PREPARE[language]?.(text) ?? text);
    const root = tree.rootNode;
    const parts = EXTRACTORS[language](root, { docs: options.docs ?? 'first-sentence' });
    const { errors, errorChars } = measureErrors(root);
    return {
      skeleton: { file, language, ...parts },
      errors,
      errorRatio: text.length === 0 ? 0 : Math.min(1, errorChars / text.length),
    };
  } catch (cause) {
    if (CairnError.is(cause)) throw cause;
    throw new CairnError('PARSE_FAILED', `skeleton extraction failed for ${file}: ${errorMessage(cause)}`, { cause, details: { file, language } });
  } finally {
    tree?.delete();
  }
}
